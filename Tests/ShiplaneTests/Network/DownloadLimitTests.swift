import Foundation
import Hummingbird
import NIOCore
import Testing
@testable import Shiplane

/// Downloads written to a file (`HTTPRequest.responseFile`): a body past `maxResponseFileBytes`
/// fails at once, by its Content-Length or, sent in chunks without one, as it arrives, never
/// retried, its partial file removed; with `followsRedirects` off a 3xx comes back to the caller.
@Suite("Downloads to a file: size limits and redirects left to the caller", .offThePool)
struct DownloadLimitTests {
    /// A server answering `/chunked` with 4 chunks of 1 KiB and no Content-Length, `/sized` with
    /// 4 KiB and its Content-Length, and `/moved` with a 302 to `/sized`; it counts requests.
    func withServer(_ body: (String, RequestCount) async throws -> Void) async throws {
        let count = RequestCount()
        let server = try await TestServer.start { request, _ in
            _ = try await request.readBody(keeping: 0)
            count.add()
            switch request.rawSegments.segments.last {
            case "chunked":
                return Response(status: .ok, headers: [:], body: ResponseBody { writer in
                    for _ in 0..<4 { try await writer.write(ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 1024))) }
                    try await writer.finish(nil)
                })
            case "moved":
                return Reply.empty(302, headers: ["Location": "/sized"])
            default:
                return Reply.raw(200, [UInt8](repeating: 0x62, count: 4096), contentType: "application/octet-stream", headers: [:])
            }
        }
        defer { server.stop() }
        try await body(server.baseURL, count)
    }

    func request(_ url: String, to file: String, limit: Int64?) -> Shiplane.HTTPRequest {
        var request = Shiplane.HTTPRequest(method: .get, url: url)
        request.responseFile = file
        request.maxResponseFileBytes = limit
        return request
    }

    @Test(arguments: ["chunked", "sized"])
    func aBodyPastTheLimitFailsOnceAndLeavesNoFile(path: String) async throws {
        let folder = NSTemporaryDirectory() + "shiplane-download-limit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withServer { base, count in
            let transport = HTTPTransport(sender: LiveHTTPClient())
            await #expect(throws: HTTPTransportError.self) {
                do {
                    _ = try await transport.send(request(base + "/" + path, to: folder + "/file", limit: 3000))
                } catch let error as HTTPTransportError {
                    #expect(error.message == "GET \(base)/\(path) answered more than 3000 bytes, the most allowed")
                    throw error
                }
            }
            #expect(count.value == 1, "not retried")
            #expect(!FileManager.default.fileExists(atPath: folder + "/file"), "no partial file is left")
            // Within the limit the whole body is written.
            let fine = try await transport.send(request(base + "/" + path, to: folder + "/file", limit: 4096))
            #expect(fine.status == 200)
            #expect((try FileManager.default.attributesOfItem(atPath: folder + "/file")[.size] as? Int) == 4096)
        }
    }

    @Test func aRedirectComesBackToTheCallerWhenAsked() async throws {
        let folder = NSTemporaryDirectory() + "shiplane-download-limit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withServer { base, count in
            let transport = HTTPTransport(sender: LiveHTTPClient())
            var held = request(base + "/moved", to: folder + "/file", limit: nil)
            held.followsRedirects = false
            let answer = try await transport.send(held)
            #expect(answer.status == 302 && answer.header("location") == "/sized")
            #expect(!FileManager.default.fileExists(atPath: folder + "/file"))
            let followed = try await transport.send(request(base + "/moved", to: folder + "/file", limit: nil))
            #expect(followed.status == 200)
            #expect(count.value == 3)
        }
    }
}

/// How many requests a stand-in answered (any path).
final class RequestCount: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
