import Foundation
import Hummingbird

/// An in-process Slack incoming webhook that enforces Slack's payload rules.
///
/// Answers `ok` for a valid payload, else Slack's error strings with Slack's statuses: `no_text`
/// (400) when `text` is missing and there are no blocks, `invalid_blocks` (400) for more than 50
/// blocks or a section text over 3,000 characters, `invalid_payload` (400) for bad JSON, and
/// `channel_not_found` (404) on the path `/services/gone`.
final class FakeSlack: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [[String: Any]] = []
    private var rejections: [String] = []
    private(set) var server: TestServer?

    var webhookURL: String { (server?.baseURL ?? "") + "/services/T000/B000/XXXXSECRETXXXX" }
    var goneURL: String { (server?.baseURL ?? "") + "/services/gone" }
    var payloads: [[String: Any]] { lock.withLock { received } }
    var rejected: [String] { lock.withLock { rejections } }

    func start() async throws {
        server = try await TestServer.start { [self] request, _ in try await self.handle(request) }
    }

    func stop() { server?.stop() }

    private func reject(_ status: Int, _ code: String) -> Response {
        lock.withLock { rejections.append(code) }
        return Reply.text(status, code, contentType: "text/html")
    }

    private func handle(_ request: Request) async throws -> Response {
        let (bytes, _) = try await request.readBody()
        if request.pathAndQuery.path == "/services/gone" { return reject(404, "channel_not_found") }
        guard request.method == .post else { return reject(405, "invalid_method") }
        guard let payload = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return reject(400, "invalid_payload")
        }
        let blocks = payload["blocks"] as? [[String: Any]] ?? []
        let text = payload["text"] as? String ?? ""
        if text.isEmpty && blocks.isEmpty { return reject(400, "no_text") }
        if text.utf16.count > 40_000 { return reject(400, "msg_too_long") }
        if blocks.count > 50 { return reject(400, "invalid_blocks") }
        for block in blocks {
            switch block["type"] as? String {
            case "section":
                if let inner = block["text"] as? [String: Any] {
                    let value = inner["text"] as? String ?? ""
                    if value.isEmpty || value.utf16.count > 3_000 { return reject(400, "invalid_blocks") }
                } else if let fields = block["fields"] as? [[String: Any]] {
                    if fields.isEmpty || fields.count > 10 { return reject(400, "invalid_blocks") }
                    if fields.contains(where: { (($0["text"] as? String) ?? "").utf16.count > 2_000 }) { return reject(400, "invalid_blocks") }
                } else {
                    return reject(400, "invalid_blocks")
                }
            case "header":
                let value = (block["text"] as? [String: Any])?["text"] as? String ?? ""
                if value.isEmpty || value.utf16.count > 150 { return reject(400, "invalid_blocks") }
            case "context":
                let elements = block["elements"] as? [[String: Any]] ?? []
                if elements.isEmpty || elements.count > 10 { return reject(400, "invalid_blocks") }
            case "divider":
                break
            default:
                return reject(400, "invalid_blocks")
            }
        }
        lock.withLock { received.append(payload) }
        return Reply.text(200, "ok", contentType: "text/html")
    }
}
