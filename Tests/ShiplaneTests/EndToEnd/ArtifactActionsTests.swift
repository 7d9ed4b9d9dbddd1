import Foundation
import Hummingbird
import Testing

/// Requests a local server received: method, path, body.
final class ReceivedRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(method: String, path: String, body: [UInt8])] = []
    func add(_ method: String, _ path: String, _ body: [UInt8]) { lock.withLock { items.append((method, path, body)) } }
    var all: [(method: String, path: String, body: [UInt8])] { lock.withLock { items } }
}

@Suite("Archives, checksums, folder target, uploads and webhooks in lanes", .serialized, .offThePool)
struct ArtifactActionsTests {
    static let lane = #"""
    import Shiplane

    struct Package: Lane {
        @Option var target = ""
        @Flag var failAtEnd = false

        func run(_ lane: LaneContext) async throws {
            let archive = try lane.archive("payload", to: "dist/payload.tar.gz")
            let zip = try lane.archive("payload", to: "dist/payload.zip", format: .zip)
            let sums = try lane.checksums([archive, zip], to: "dist/SHA256SUMS")
            try lane.copyToDirectory([archive, sums], directory: "published")
            if !target.isEmpty {
                try await lane.upload([archive, zip], to: target + "/files/{version}/{name}", method: .put, version: "1.0.0")
                try await lane.webhook(target + "/hook", template: #"{"text": "shipped {{name}}"}"#, values: ["name": "payload \"1.0\""])
            }
            if failAtEnd { try await lane.sh("false") }
        }
    }
    """#

    /// A server that keeps every request and answers 201; with `holdingPuts`, a PUT is answered
    /// only after 60 s (an upload in flight).
    func recordingServer(_ received: ReceivedRequests, holdingPuts: Bool = false) async throws -> TestServer {
        try await TestServer.start { request, _ in
            let body = try await request.readBody()
            received.add(request.method.rawValue, request.pathAndQuery.path, body.bytes)
            if holdingPuts && request.method == .put { try? await Task.sleep(nanoseconds: 60_000_000_000) }
            return Reply.json(201, ["ok": true])
        }
    }

    func repository() throws -> TemporaryRepository {
        let repo = try repositoryWithLanes(["Lanes/Package.swift": Self.lane])
        try repo.write("payload/bin/tool", "#!/bin/sh\necho tool\n")
        try repo.write("payload/README", "read me\n")
        return repo
    }

    @Test func archivesAreDeterministicValidAndChecksummed() async throws {
        let repo = try repository()
        #expect(try await repo.shiplaneAsync(["package"]).status == 0)
        let first = try #require(FileManager.default.contents(atPath: repo.path + "/dist/payload.tar.gz"))
        try FileManager.default.removeItem(atPath: repo.path + "/published")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: repo.path + "/payload/README")
        #expect(try await repo.shiplaneAsync(["package"]).status == 0)
        #expect(FileManager.default.contents(atPath: repo.path + "/dist/payload.tar.gz") == first, "same input, same bytes")
        let listing = try runProgram("/bin/tar", ["-tzf", "dist/payload.tar.gz"], in: repo.path, environment: repo.environment)
        #expect(listing.status == 0)
        #expect(listing.stdout.contains("bin/tool"))
        let check = try runProgram("/usr/bin/sha256sum", ["-c", "SHA256SUMS"], in: repo.path + "/dist", environment: repo.environment)
        #expect(check.status == 0, "\(check.all)")
        #expect(FileManager.default.fileExists(atPath: repo.path + "/published/payload.tar.gz"))
    }

    @Test func aFailureRemovesWhatTheLaneWrote() async throws {
        let repo = try repository()
        let result = try await repo.shiplaneAsync(["package", "--fail-at-end"])
        #expect(result.status == 1)
        for path in ["dist/payload.tar.gz", "dist/payload.zip", "dist/SHA256SUMS", "published/payload.tar.gz"] {
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/" + path), "\(path) was rolled back")
        }
    }

    /// An upload is written down before its first byte goes: the lane program killed while the
    /// server holds a PUT, the supervisor rolls back the files the lane wrote and reports, from
    /// the record, that files may have gone to the server and stay there.
    @Test func anUploadCutShortByAKillIsReportedFromTheRecord() async throws {
        let received = ReceivedRequests()
        let server = try await recordingServer(received, holdingPuts: true)
        defer { server.stop() }
        let repo = try repository()
        let run = try SupervisedRun(["package", "--target", server.baseURL], in: repo.path, environment: repo.environment)
        // Wait (at most 60 s) for a PUT to reach the server, then kill the lane program.
        run.wait { received.all.contains { $0.method == "PUT" } }
        #expect(try run.killLaneProgram(), "the lane program runs under the supervisor")
        let (status, all) = run.finish()
        #expect(status == 130, "\(all)")
        #expect(all.contains("files may have been uploaded to \(server.baseURL)/files/{version}/{name}"), "\(all)")
        for path in ["dist/payload.tar.gz", "dist/SHA256SUMS", "published/payload.tar.gz"] {
            #expect(!FileManager.default.fileExists(atPath: repo.path + "/" + path), "\(path) was rolled back: \(all)")
        }
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "what stays by design leaves nothing to finish: \(all)")
    }

    /// Uploaded files and a sent message cannot be taken back: a lane failing after them rolls
    /// back what it wrote, reports both as staying (not as undos that failed), leaves no record
    /// behind, and the next run goes ahead.
    @Test func uploadsAndMessagesStayByDesignWhenTheLaneFails() async throws {
        let received = ReceivedRequests()
        let server = try await recordingServer(received)
        defer { server.stop() }
        let repo = try repository()
        let failed = try await repo.shiplaneAsync(["package", "--target", server.baseURL, "--fail-at-end"])
        #expect(failed.status == 1, "\(failed.all)")
        #expect(failed.all.contains("stays: files uploaded to \(server.baseURL)/files/{version}/{name} stay: the server owns them"), "\(failed.all)")
        #expect(failed.all.contains("stays: a message was sent to the webhook \(server.baseURL)/***: it cannot be taken back"), "\(failed.all)")
        #expect(!failed.all.contains("could not undo"), "\(failed.all)")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist/payload.tar.gz"), "rolled back")
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/.git/shiplane/run.json"), "\(failed.all)")
        let again = try await repo.shiplaneAsync(["package", "--target", server.baseURL])
        #expect(again.status == 0, "the next run is not held back: \(again.all)")
        // In GitHub Actions they are warnings titled "stays", and the step summary says so.
        let summary = repo.root + "/summary.md"
        let inCI = try await repo.shiplaneAsync(["package", "--target", server.baseURL, "--fail-at-end"],
                                                environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(inCI.status == 1, "\(inCI.all)")
        #expect(inCI.all.contains("::warning title=stays::a message was sent to the webhook \(server.baseURL)/***: it cannot be taken back"), "\(inCI.all)")
        #expect(!inCI.all.contains("title=could not roll back"), "\(inCI.all)")
        let written = (try? String(contentsOfFile: summary, encoding: .utf8)) ?? ""
        #expect(written.contains("- stays: files uploaded to \(server.baseURL)/files/{version}/{name} stay"), "\(written)")
    }

    @Test func uploadsAndWebhooksReachTheServer() async throws {
        let received = ReceivedRequests()
        let server = try await recordingServer(received)
        defer { server.stop() }
        let repo = try repository()
        let result = try await repo.shiplaneAsync(["package", "--target", server.baseURL])
        #expect(result.status == 0, "\(result.all)")
        let uploads = received.all.filter { $0.method == "PUT" }.map(\.path).sorted()
        #expect(uploads == ["/files/1.0.0/payload.tar.gz", "/files/1.0.0/payload.zip"])
        let archive = try #require(FileManager.default.contents(atPath: repo.path + "/dist/payload.tar.gz"))
        #expect(received.all.first { $0.path.hasSuffix("payload.tar.gz") }?.body == Array(archive))
        let hook = try #require(received.all.first { $0.path == "/hook" })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(hook.body)) as? [String: Any])
        #expect(json["text"] as? String == "shipped payload \"1.0\"")
    }

    @Test func aServerThatAlwaysFailsIsRetriedThenReported() async throws {
        let server = try await TestServer.start { _, _ in Reply.text(503, "<html>busy</html>", contentType: "text/html") }
        defer { server.stop() }
        let repo = try repository()
        let result = try await repo.shiplaneAsync(["package", "--target", server.baseURL], environment: ["SHIPLANE_HTTP_ATTEMPTS": "3", "SHIPLANE_HTTP_RETRY_DELAY": "0.01"])
        #expect(result.status == 1)
        #expect(result.all.contains("503"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/dist/payload.tar.gz"), "rolled back")
    }

    @Test func aMalformedWebhookURLIsExplained() async throws {
        let repo = try repository()
        let result = try await repo.shiplaneAsync(["package", "--target", "not a url"])
        #expect(result.status == 1)
        #expect(result.stderr.lowercased().contains("url"))
    }
}
