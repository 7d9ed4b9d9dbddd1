import Foundation
import Hummingbird
import ShiplaneTesting
import Testing
@testable import Shiplane

private final class Captured: @unchecked Sendable {
    let lock = NSLock()
    var requests: [(method: String, path: String, contentType: String?, token: String?, body: [UInt8])] = []
}

@Suite("Generic upload and directory target", .offThePool)
struct UploadTargetTests {
    @Test func putsAFileWithPlaceholdersAndHeaders() async throws {
        let captured = Captured()
        let server = try await TestServer.start { request, _ in
            let (bytes, _) = try await request.readBody()
            captured.lock.withLock {
                captured.requests.append((request.method.rawValue, request.uri.path, request.header("Content-Type"), request.header("X-Token"), bytes))
            }
            return request.uri.path.contains("denied") ? Reply.text(403, "no") : Reply.empty(201)
        }
        defer { server.stop() }
        try await withTemporaryDirectory { folder in
            let path = try writeFile(folder, "app 1.zip", "zip bytes")
            try await withTransport { transport, _ in
                let target = HTTPUploadTarget(urlTemplate: server.baseURL + "/files/{version}/{name}", method: .put,
                                              headers: [("X-Token", "s3cr3t-value")], transport: transport)
                try await target.upload(file: path, version: "1.0.0")
                let request = try #require(captured.lock.withLock { captured.requests.first })
                #expect(request.method == "PUT")
                #expect(request.path == "/files/1.0.0/app%201.zip")
                #expect(request.contentType == "application/zip")
                #expect(request.token == "s3cr3t-value")
                #expect(request.body == Array("zip bytes".utf8))

                let denied = HTTPUploadTarget(urlTemplate: server.baseURL + "/denied/{name}", method: .post,
                                              transport: transport)
                await #expect {
                    try await denied.upload(file: path, name: "x.bin")
                } throws: { error in
                    (error as? UploadError)?.status == 403 && (error as? UploadError)?.suggestion != nil
                }
                #expect(throws: NotifyError.self) {
                    _ = try HTTPUploadTarget(urlTemplate: "ftp://host/{name}", transport: transport).url(name: "a", version: nil)
                }
            }
        }
    }

    @Test func copyToDirectoryCopiesAtomicallyAndNeverOverwritesSilently() async throws {
        try await withTemporaryDirectory { folder in
            let source = try writeFile(folder, "src/app.zip", "one")
            let target = folder.appendingPathComponent("dist/releases").path
            let context = TestLaneContext(workingDirectory: folder.path).context
            #expect(try context.copyToDirectory([source], directory: target) == [target + "/app.zip"])
            #expect(try context.copyToDirectory([source], directory: target) == [target + "/app.zip"], "an identical copy is left alone")
            try writeFile(folder, "src/app.zip", "two")
            #expect { try context.copyToDirectory([source], directory: target) } throws: { allText(of: $0).contains("exists with other content") }
            #expect(try String(contentsOfFile: target + "/app.zip", encoding: .utf8) == "one")
            try context.copyToDirectory([source], directory: target, replace: true)
            #expect(try String(contentsOfFile: target + "/app.zip", encoding: .utf8) == "two")
            #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["app.zip"], "no temporary file is left")
            #expect(throws: (any Error).self) { try context.copyToDirectory([folder.appendingPathComponent("src").path], directory: target) }
        }
    }
}
