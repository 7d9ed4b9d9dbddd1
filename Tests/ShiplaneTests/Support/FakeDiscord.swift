import Foundation
import Hummingbird

/// An in-process Discord webhook API, as Discord's documentation describes "Execute Webhook" and
/// "Delete Webhook Message": `POST /api/webhooks/{id}/{token}` (JSON only; `?wait=true` answers
/// 200 with the message, else 204), `DELETE /api/webhooks/{id}/{token}/messages/{message_id}` (204).
/// Errors are Discord's JSON (`{"message", "code"}`): 404 `Unknown Webhook` (10015), 401
/// `Invalid Webhook Token` (50027), 400 `Cannot send an empty message` (50006) and `Invalid Form
/// Body` (50035) for any limit passed (content 2,000; 10 embeds; title 256, description 4,096,
/// 25 fields of 256/1,024, 6,000 in all; username 80), 404 `Unknown Message` (10008); rate limits
/// are 429 with `retry_after`, `Retry-After` and the `X-RateLimit-*` headers.
final class FakeDiscord: @unchecked Sendable {
    enum Fault { case loseAnswer, status(Int), rateLimited(seconds: Int) }

    let webhookID = "112233445566778899"
    let webhookToken = "DiscordWebhookTokenSECRET-abc_123"
    private let lock = NSLock()
    private var stored: [(id: String, json: [String: Any])] = []
    private var faults: [Fault] = []
    private var calls: [String] = []
    private var nextID = 1_100_000_000_000_000_000
    private(set) var server: TestServer?

    var webhookURL: String { (server?.baseURL ?? "") + "/api/webhooks/\(webhookID)/\(webhookToken)" }
    var messages: [[String: Any]] { lock.withLock { stored.map(\.json) } }
    var log: [String] { lock.withLock { calls } }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }
    func inject(_ fault: Fault) { lock.withLock { faults.append(fault) } }

    private func error(_ status: Int, _ message: String, _ code: Int, headers: [String: String] = [:]) -> Response {
        Reply.json(status, ["message": message, "code": code], headers: headers)
    }

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let (bytes, _) = try await request.readBody()
        lock.withLock { calls.append("\(request.method.rawValue) \(path.replacingOccurrences(of: webhookToken, with: "TOKEN"))\(query["wait"].map { "?wait=\($0)" } ?? "")") }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 4, parts[0] == "api", parts[1] == "webhooks", parts[2] == webhookID else { return error(404, "Unknown Webhook", 10015) }
        guard parts[3] == webhookToken else { return error(401, "Invalid Webhook Token", 50027) }
        let fault: Fault? = lock.withLock { faults.isEmpty ? nil : faults.removeFirst() }
        switch fault {
        case .status(let status)?: return error(status, "Internal Server Error", 0)
        case .rateLimited(let seconds)?:
            let body: [String: Any] = ["message": "You are being rate limited.", "retry_after": Double(seconds), "global": false]
            return Reply.json(429, body, headers: ["Retry-After": "\(seconds)", "X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "0",
                                                  "X-RateLimit-Reset-After": "\(seconds)", "X-RateLimit-Bucket": "abcd1234",
                                                  "X-RateLimit-Reset": "\(Int(Date().timeIntervalSince1970) + seconds)"])
        default: break
        }
        if request.method == .delete, parts.count == 6, parts[4] == "messages" {
            let removed: Bool = lock.withLock {
                guard let index = stored.firstIndex(where: { $0.id == parts[5] }) else { return false }
                stored.remove(at: index)
                return true
            }
            return removed ? Reply.empty(204) : error(404, "Unknown Message", 10008)
        }
        guard request.method == .post, parts.count == 4 else { return error(405, "405: Method Not Allowed", 0) }
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true,
              let json = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return error(400, "Cannot send an empty message", 50006)
        }
        if let problem = Self.invalid(json) {
            return Reply.json(400, ["message": "Invalid Form Body", "code": 50035, "errors": [problem: ["_errors": [["code": "BASE_TYPE_MAX_LENGTH", "message": "Must be fewer in length."]]]]])
        }
        let content = json["content"] as? String ?? ""
        let embeds = json["embeds"] as? [[String: Any]] ?? []
        if content.isEmpty && embeds.isEmpty { return error(400, "Cannot send an empty message", 50006) }
        let id: String = lock.withLock {
            nextID += 1
            stored.append(("\(nextID)", json))
            return "\(nextID)"
        }
        if case .loseAnswer? = fault {
            try await context.channel.close()
            throw CancellationError()
        }
        guard query["wait"] == "true" else { return Reply.empty(204) }
        return Reply.json(200, ["id": id, "type": 0, "content": content, "embeds": embeds, "channel_id": "998877665544332211",
                                "webhook_id": webhookID, "timestamp": "2026-11-25T17:00:00.000000+00:00"])
    }

    /// The first field that breaks Discord's limits, if any.
    static func invalid(_ json: [String: Any]) -> String? {
        func length(_ value: Any?) -> Int { (value as? String)?.unicodeScalars.count ?? 0 }
        if length(json["content"]) > 2_000 { return "content" }
        if length(json["username"]) > 80 { return "username" }
        if let mentions = json["allowed_mentions"] as? [String: Any], let parse = mentions["parse"] as? [String],
           !Set(parse).isSubset(of: ["roles", "users", "everyone"]) { return "allowed_mentions" }
        let embeds = json["embeds"] as? [[String: Any]] ?? []
        if embeds.count > 10 { return "embeds" }
        var total = 0
        for embed in embeds {
            if length(embed["title"]) > 256 { return "embeds.0.title" }
            if length(embed["description"]) > 4_096 { return "embeds.0.description" }
            let fields = embed["fields"] as? [[String: Any]] ?? []
            if fields.count > 25 { return "embeds.0.fields" }
            for field in fields {
                if length(field["name"]) == 0 || length(field["name"]) > 256 { return "embeds.0.fields.name" }
                if length(field["value"]) == 0 || length(field["value"]) > 1_024 { return "embeds.0.fields.value" }
                total += length(field["name"]) + length(field["value"])
            }
            total += length(embed["title"]) + length(embed["description"])
            total += length((embed["footer"] as? [String: Any])?["text"]) + length((embed["author"] as? [String: Any])?["name"])
        }
        return total > 6_000 ? "embeds" : nil
    }
}
