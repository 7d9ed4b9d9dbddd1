import Foundation
import Testing
@testable import Shiplane

private let s3Lane = #"""
import Shiplane

struct Release: Lane {
    func run(_ lane: LaneContext) async throws {
        let version = try lane.bumpVersion(.patch)
        try lane.commitVersionBump(message: "Version bump to \(version)")
        try lane.addGitTag("v\(version)")
        try await lane.push(tags: ["v\(version)"])
        let archive = try lane.artifact(".build/dist/app.tar.gz")
        try await lane.uploadToS3([archive], bucket: "releases", prefix: "rocket/\(version)", pathStyle: true,
                                  partSize: 5 << 20)
    }
}
"""#

/// A repository ready to release 1.4.1 with `s3Lane`, a 40 MiB archive at `.build/dist/app.tar.gz`
/// (bytes from `seed`) and moto's server: the set-up every test here kills a run in.
private struct KilledUpload {
    let server: RealS3Server
    let repo: TemporaryRepository
    let origin: TemporaryRepository
    let bytes: Data
    let environment: [String: String]
    static let key = "rocket/1.4.1/app.tar.gz"

    init(seed: UInt64, partDelay: Double = 0.7, holdCreate: String? = nil) throws {
        server = try RealS3Server(partDelay: partDelay, holdCreate: holdCreate)
        let made = try releasableRepository(lane: s3Lane)
        repo = made.repo
        origin = made.origin
        var generator = SeededGenerator(seed: seed)
        bytes = generator.bytes(40 << 20)
        try Self.putArchive(bytes, in: repo.path)
        environment = repo.environment.merging(server.environment) { $1 }
    }

    static func putArchive(_ bytes: Data, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/.build/dist", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: folder + "/.build/dist/app.tar.gz"))
    }

    /// The same command in a fresh clone of origin, as a CI retry on another runner would run it
    /// (the archive built again there: the same bytes).
    func retryInAFreshClone() async throws -> (status: Int32, all: String) {
        let fresh = try TemporaryRepository(commit: false)
        let clone = fresh.path + "/clone"
        try fresh.git("clone", "-q", origin.path, clone)
        try Self.putArchive(bytes, in: clone)
        let again = try await runProgramAsync(shiplaneBinary, ["release"], in: clone,
                                              environment: fresh.environment.merging(server.environment) { $1 }.merging(["CI": "true"]) { $1 })
        return (again.status, again.all)
    }

    /// The bucket ends with one object holding the file's bytes and digest, no multipart upload
    /// open, and origin with one new version.
    func expectFinished(_ all: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let after = try server.contents()
        #expect(after.uploads.isEmpty, "no multipart upload left open: \(after.uploads)", sourceLocation: sourceLocation)
        #expect(Array(after.objects.keys) == [Self.key], "one object: \(after.objects.keys)", sourceLocation: sourceLocation)
        let object = after.objects[Self.key]
        #expect(object?["sha256"] as? String == SHA256.hex(of: bytes), "the file's bytes", sourceLocation: sourceLocation)
        #expect(object?["meta_sha256"] as? String == SHA256.hex(of: bytes), "the file's digest kept with it", sourceLocation: sourceLocation)
        #expect(object?["size"] as? Int == bytes.count, sourceLocation: sourceLocation)
        #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.4.1", "no second version", sourceLocation: sourceLocation)
        #expect(!all.contains(server.secretAccessKey), sourceLocation: sourceLocation)
    }
}

@Suite("S3: the shiplane binary killed in a multipart upload, then run again", .serialized, .offThePool)
struct S3KilledUploadTests {
    /// The lane program is SIGKILLed once the record holds the multipart upload's id (8 parts) and S3 holds
    /// some of its parts: past the push the record
    /// stays (exit 75) with the upload's id, and the same command run again continues that upload
    /// (the parts S3 holds are not sent again) and completes it with the file's very bytes.
    @Test func aMultipartUploadKilledMidwayIsContinuedByTheRerun() async throws {
        let upload = try KilledUpload(seed: 7)
        let (server, repo) = (upload.server, upload.repo)
        defer { server.stop() }

        let run = try SupervisedRun(["release"], in: repo.path, environment: upload.environment)
        // Killed once the record holds the upload's id and S3 holds at least one of its parts.
        let recordPath = repo.path + "/.git/shiplane/run.json"
        run.wait {
            ((try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? "").contains("\"uploadID\"")
                && ((try? server.contents().parts) ?? 0) >= 1
        }
        #expect(try run.killLaneProgram())
        let before = try server.contents()
        #expect(before.uploads == [KilledUpload.key] && before.objects.isEmpty, "killed midway: \(before)")
        #expect((1..<8).contains(before.parts), "killed with some of the 8 parts held: \(before.parts)")
        let (status, all) = run.finish()
        #expect(status == 75, "past the push: resumable\n\(all)")
        let record = try String(contentsOfFile: repo.path + "/.git/shiplane/run.json", encoding: .utf8)
        #expect(record.contains("s3.object") && record.contains("uploadID"), "the upload id is in the record")
        #expect(!record.contains(server.secretAccessKey) && !all.contains(server.secretAccessKey))

        let again = try await repo.shiplaneAsync(["release"], environment: upload.environment)
        #expect(again.status == 0, "\(again.all)")
        // The parts S3 held are not sent again: the rerun says how many it found and continues from there.
        #expect(again.all.contains("continuing the multipart upload of s3://releases/rocket/1.4.1/app.tar.gz: S3 holds \(before.parts) of 8 parts")
                || again.all.contains("S3 holds \(before.parts + 1) of 8 parts"), "\(again.all)")
        try upload.expectFinished(again.all)
    }

    /// The whole `shiplane` (supervisor and lane program, as a dead CI runner) is SIGKILLed while
    /// S3 holds some of the multipart upload's parts, and the retry runs in a fresh clone of origin
    /// (the archive built again there, the same bytes): it finds the upload through origin's
    /// record and finishes it, so the bucket ends with one object holding the file's bytes and
    /// digest and no multipart upload left open.
    @Test func aMultipartUploadKilledMidwayIsFinishedFromAFreshClone() async throws {
        let upload = try KilledUpload(seed: 41)
        defer { upload.server.stop() }
        let run = try SupervisedRun(["release"], in: upload.repo.path, environment: upload.environment)
        run.wait { ((try? upload.server.contents().parts) ?? 0) >= 1 }
        try run.killEverything()
        let before = try upload.server.contents()
        #expect(before.uploads == [KilledUpload.key] && before.objects.isEmpty, "killed midway: \(before)")
        #expect((1..<8).contains(before.parts), "killed with some of the 8 parts held: \(before.parts)")
        #expect(try upload.origin.git("tag", "--list").contains("v1.4.1"), "killed past the push")

        let again = try await upload.retryInAFreshClone()
        #expect(again.status == 0, "\(again.all)")
        try upload.expectFinished(again.all)
    }

    /// The whole `shiplane` is SIGKILLed after its CreateMultipartUpload reached moto (the upload
    /// exists) and before moto's answer reached it (the server holds the answer): the run never
    /// heard the upload's id, and origin's record says only that an upload was about to begin.
    /// The retry in a fresh clone finds that upload among the key's open uploads (it holds no
    /// part, so none of other bytes), continues it instead of asking for another (moto sees one
    /// CreateMultipartUpload in all), and completes it: one object, the file's bytes, no upload open.
    @Test func aMultipartUploadAskedForButNeverHeardNamedIsFinishedFromAFreshClone() async throws {
        let holding = try TemporaryRepository(commit: false)
        let creates = holding.root + "/creates"
        let upload = try KilledUpload(seed: 43, partDelay: 0, holdCreate: creates)
        defer { upload.server.stop() }
        let run = try SupervisedRun(["release"], in: upload.repo.path, environment: upload.environment)
        run.wait { FileManager.default.fileExists(atPath: creates) }
        #expect(FileManager.default.fileExists(atPath: creates), "CreateMultipartUpload reached moto")
        try run.killEverything()
        #expect(FileManager.default.createFile(atPath: creates + ".release", contents: nil), "the held answer let go")
        let before = try upload.server.contents()
        #expect(before.uploads == [KilledUpload.key] && before.parts == 0 && before.objects.isEmpty, "killed between the upload's creation and its answer: \(before)")
        #expect(try upload.origin.git("tag", "--list").contains("v1.4.1"), "killed past the push")
        let record = try upload.origin.git("show", "refs/shiplane/run:run.json")
        #expect(record.contains("s3.object") && !record.contains("uploadID"), "origin's record holds the upload's step with no id: \(record)")

        let again = try await upload.retryInAFreshClone()
        #expect(again.status == 0, "\(again.all)")
        #expect(again.all.contains("continuing the multipart upload of s3://releases/\(KilledUpload.key) an earlier attempt began: S3 holds 0 of 8 parts"), "\(again.all)")
        try upload.expectFinished(again.all)
        #expect(try String(contentsOfFile: creates, encoding: .utf8) == "create\n", "one CreateMultipartUpload in all: the retry asked for no second upload")
    }
}
