import Foundation
import Testing
@testable import Shiplane

struct S3UploadLane: Lane {
    func run(_ lane: LaneContext) async throws {
        let files = (lane.environment["FILES"] ?? "").split(separator: ",").map(String.init)
        try await lane.uploadToS3(files, bucket: lane.environment["BUCKET"] ?? "releases", prefix: "releases/1.2.0", pathStyle: true,
                                  acl: lane.environment["ACL"] ?? "private", partSize: 5 << 20)
        if lane.environment["FAIL"] == "1" { try await lane.sh("false") }
    }
}

@Suite("S3 uploads against a real S3 server (moto, signatures checked)", .serialized, .offThePool)
struct S3UploadTests {
    /// A folder with a small file and one of 12 MiB (three parts of 5, 5 and 2 MiB), random bytes.
    private func makeFiles() throws -> String {
        let folder = NSTemporaryDirectory() + "shiplane-s3-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/dist", withIntermediateDirectories: true)
        var generator = SeededGenerator(seed: 41)
        try generator.bytes(1000).write(to: URL(fileURLWithPath: folder + "/dist/SHA256SUMS"))
        try generator.bytes(12 << 20).write(to: URL(fileURLWithPath: folder + "/dist/app.tar.gz"))
        return folder
    }

    private func run(_ server: RealS3Server, in folder: String, extra: [String: String] = [:], dryRun: Bool = false) async -> LaneRunResult {
        var variables = server.environment
        variables["FILES"] = "dist/SHA256SUMS,dist/app.tar.gz"
        variables["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for (key, value) in extra { variables[key] = value }
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables),
                                        reporter: RecordingReporter(), isDryRun: dryRun))
        return await LaneRunner().run(S3UploadLane(), in: context)
    }

    private func sha256(_ path: String) throws -> String {
        SHA256.hex(of: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func putsSmallAndMultipartFilesWithTheirBytesAndACLAndARerunSendsNothing() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let folder = try makeFiles()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = await run(server, in: folder, extra: ["ACL": "public-read"])
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        let (objects, uploads, _) = try server.contents()
        #expect(uploads.isEmpty)
        #expect(Set(objects.keys) == ["releases/1.2.0/SHA256SUMS", "releases/1.2.0/app.tar.gz"])
        for name in ["SHA256SUMS", "app.tar.gz"] {
            let object = try #require(objects["releases/1.2.0/\(name)"])
            #expect(object["sha256"] as? String == (try sha256(folder + "/dist/" + name)), "boto3 reads back the very bytes")
            #expect(object["meta_sha256"] as? String == (try sha256(folder + "/dist/" + name)))
            #expect(object["public"] as? Bool == true)
        }
        #expect(objects["releases/1.2.0/app.tar.gz"]?["size"] as? Int == 12 << 20)

        let again = await run(server, in: folder, extra: ["ACL": "public-read"])
        #expect(again.succeeded)
        let notes = again.steps.filter { $0.name == "uploadToS3" }.map { $0.note ?? "" }
        #expect(notes.count == 2 && notes.allSatisfy { $0.contains("already holds these bytes: nothing sent") }, "\(notes)")
    }

    @Test func aWrongSecretIsRefusedByTheServerBeforeAnythingIsSent() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let folder = try makeFiles()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let wrong = server.secretAccessKey.dropLast() + "X"
        let result = await run(server, in: folder, extra: ["AWS_SECRET_ACCESS_KEY": String(wrong)])
        let text = result.failure.map { allText(of: $0) } ?? ""
        #expect(text.contains("HTTP 403"), "\(text)")
        #expect(text.contains("AWS_SECRET_ACCESS_KEY does not belong to AWS_ACCESS_KEY_ID"))
        #expect(!text.contains(String(wrong)) && !text.contains(server.secretAccessKey))
        #expect(try server.contents().objects.isEmpty)

        let missing = await run(server, in: folder, extra: ["AWS_SECRET_ACCESS_KEY": ""])
        #expect(missing.failure.map { allText(of: $0) }?.contains("AWS_SECRET_ACCESS_KEY is not set") == true)
        let noBucket = await run(server, in: folder, extra: ["BUCKET": "no-such-bucket"])
        #expect(noBucket.failure.map { allText(of: $0) }?.contains("HTTP 404") == true)
    }

    @Test func aDryRunChecksTheCredentialsAndSaysWhatWouldBeSentAndSendsNothing() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let folder = try makeFiles()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = await run(server, in: folder, dryRun: true)
        #expect(result.succeeded, "\(result.failure.map { allText(of: $0) } ?? "")")
        let notes = result.steps.filter { $0.name == "uploadToS3" }.map { $0.note ?? "" }
        #expect(notes.first?.contains("would put dist/SHA256SUMS (1 KB, sha256 \(try sha256(folder + "/dist/SHA256SUMS"))) at s3://releases/releases/1.2.0/SHA256SUMS in one PUT, acl private") == true, "\(notes)")
        #expect(notes.last?.contains("(12.6 MB, sha256 \(try sha256(folder + "/dist/app.tar.gz"))) at s3://releases/releases/1.2.0/app.tar.gz in a multipart upload of 3 parts of 5.2 MB, acl private") == true, "\(notes)")
        #expect(notes.allSatisfy { !$0.contains(server.secretAccessKey) })
        #expect(try server.contents().objects.isEmpty)
        let wrong = await run(server, in: folder, extra: ["AWS_SECRET_ACCESS_KEY": "wrong-secret-value"], dryRun: true)
        #expect(wrong.failure.map { allText(of: $0) }?.contains("SignatureDoesNotMatch") == true, "a dry run checks the credentials")
    }

    @Test func aFailedLaneDeletesWhatItPutAndLeavesAnObjectWithOtherBytes() async throws {
        let server = try RealS3Server()
        defer { server.stop() }
        let folder = try makeFiles()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = await run(server, in: folder, extra: ["FAIL": "1"])
        #expect(!result.succeeded)
        let (objects, uploads, _) = try server.contents()
        #expect(objects.isEmpty && uploads.isEmpty, "rolled back: \(objects.keys) \(uploads)")

        // An object of the same key with other bytes stops the step and is left as it was.
        try Data("other".utf8).write(to: URL(fileURLWithPath: folder + "/other"))
        _ = await run(server, in: folder, extra: ["FILES": "other"])
        try Data("changed".utf8).write(to: URL(fileURLWithPath: folder + "/other"))
        let clash = await run(server, in: folder, extra: ["FILES": "other"])
        #expect(clash.failure.map { allText(of: $0) }?.contains("exists with other bytes") == true)
        #expect(try server.contents().objects["releases/1.2.0/other"]?["size"] as? Int == 5)
    }
}
