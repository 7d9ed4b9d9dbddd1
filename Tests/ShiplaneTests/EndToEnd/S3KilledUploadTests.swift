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

@Suite("S3: the shiplane binary killed in a multipart upload, then run again", .serialized, .offThePool)
struct S3KilledUploadTests {
    /// The lane program is SIGKILLed once the record holds the multipart upload's id (8 parts) and S3 holds
    /// some of its parts: past the push the record
    /// stays (exit 75) with the upload's id, and the same command run again continues that upload
    /// (the parts S3 holds are not sent again) and completes it with the file's very bytes.
    @Test func aMultipartUploadKilledMidwayIsContinuedByTheRerun() async throws {
        let server = try RealS3Server(partDelay: 0.7)
        defer { server.stop() }
        let (repo, origin) = try releasableRepository(lane: s3Lane)
        var generator = SeededGenerator(seed: 7)
        let bytes = generator.bytes(40 << 20)
        try FileManager.default.createDirectory(atPath: repo.path + "/.build/dist", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: repo.path + "/.build/dist/app.tar.gz"))
        var environment = repo.environment
        for (key, value) in server.environment { environment[key] = value }

        let run = try SupervisedRun(["release"], in: repo.path, environment: environment)
        // Killed once the record holds the upload's id and S3 holds at least one of its parts.
        let recordPath = repo.path + "/.git/shiplane/run.json"
        run.wait {
            ((try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? "").contains("\"uploadID\"")
                && ((try? server.contents().parts) ?? 0) >= 1
        }
        #expect(try run.killLaneProgram())
        let before = try server.contents()
        #expect(before.uploads == ["rocket/1.4.1/app.tar.gz"] && before.objects.isEmpty, "killed midway: \(before)")
        #expect((1..<8).contains(before.parts), "killed with some of the 8 parts held: \(before.parts)")
        let (status, all) = run.finish()
        #expect(status == 75, "past the push: resumable\n\(all)")
        let record = try String(contentsOfFile: repo.path + "/.git/shiplane/run.json", encoding: .utf8)
        #expect(record.contains("s3.object") && record.contains("uploadID"), "the upload id is in the record")
        #expect(!record.contains(server.secretAccessKey) && !all.contains(server.secretAccessKey))

        let again = try await repo.shiplaneAsync(["release"], environment: environment)
        #expect(again.status == 0, "\(again.all)")
        // The parts S3 held are not sent again: the rerun says how many it found and continues from there.
        #expect(again.all.contains("continuing the multipart upload of s3://releases/rocket/1.4.1/app.tar.gz: S3 holds \(before.parts) of 8 parts")
                || again.all.contains("S3 holds \(before.parts + 1) of 8 parts"), "\(again.all)")
        let after = try server.contents()
        #expect(after.uploads.isEmpty)
        #expect(after.objects["rocket/1.4.1/app.tar.gz"]?["sha256"] as? String == SHA256.hex(of: bytes))
        #expect(try origin.git("tag", "--list").contains("v1.4.1"))
        #expect(!again.all.contains(server.secretAccessKey))
    }
    /// The whole `shiplane` (supervisor and lane program, as a dead CI runner) is SIGKILLed while
    /// S3 holds some of the multipart upload's parts, and the retry runs in a fresh clone of origin
    /// (the archive built again there, the same bytes): it finds the upload through origin's
    /// record and finishes it, so the bucket ends with one object holding the file's bytes and
    /// digest and no multipart upload left open.
    @Test func aMultipartUploadKilledMidwayIsFinishedFromAFreshClone() async throws {
        let server = try RealS3Server(partDelay: 0.7)
        defer { server.stop() }
        let (repo, origin) = try releasableRepository(lane: s3Lane)
        var generator = SeededGenerator(seed: 41)
        let bytes = generator.bytes(40 << 20)
        try FileManager.default.createDirectory(atPath: repo.path + "/.build/dist", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: repo.path + "/.build/dist/app.tar.gz"))
        var environment = repo.environment
        for (key, value) in server.environment { environment[key] = value }

        let run = try SupervisedRun(["release"], in: repo.path, environment: environment)
        run.wait { ((try? server.contents().parts) ?? 0) >= 1 }
        try run.killEverything()
        let before = try server.contents()
        #expect(before.uploads == ["rocket/1.4.1/app.tar.gz"] && before.objects.isEmpty, "killed midway: \(before)")
        #expect((1..<8).contains(before.parts), "killed with some of the 8 parts held: \(before.parts)")
        #expect(try origin.git("tag", "--list").contains("v1.4.1"), "killed past the push")

        let fresh = try TemporaryRepository(commit: false)
        let clone = fresh.path + "/clone"
        try fresh.git("clone", "-q", origin.path, clone)
        try FileManager.default.createDirectory(atPath: clone + "/.build/dist", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: clone + "/.build/dist/app.tar.gz"))
        let again = try await runProgramAsync(shiplaneBinary, ["release"], in: clone,
                                              environment: fresh.environment.merging(server.environment) { $1 }.merging(["CI": "true"]) { $1 })
        #expect(again.status == 0, "\(again.all)")
        let after = try server.contents()
        #expect(after.uploads.isEmpty, "no multipart upload left open: \(after.uploads)")
        #expect(Array(after.objects.keys) == ["rocket/1.4.1/app.tar.gz"], "one object: \(after.objects.keys)")
        let object = after.objects["rocket/1.4.1/app.tar.gz"]
        #expect(object?["sha256"] as? String == SHA256.hex(of: bytes), "the file's bytes")
        #expect(object?["meta_sha256"] as? String == SHA256.hex(of: bytes), "the file's digest kept with it")
        #expect(object?["size"] as? Int == bytes.count)
        #expect(try origin.git("tag", "--list") == "v1.4.0\nv1.4.1", "no second version")
        #expect(!again.all.contains(server.secretAccessKey))
    }
}
