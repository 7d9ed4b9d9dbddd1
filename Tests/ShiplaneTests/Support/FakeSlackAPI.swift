import Foundation
import Hummingbird

/// An in-process Slack Web API for bot tokens: `chat.postMessage`, `conversations.history` and
/// `chat.delete`, as Slack's method documentation describes them.
///
/// Every method needs `Authorization: Bearer <bot token>` (`not_authed` without, `invalid_auth`
/// for another); errors are HTTP 200 with `{"ok": false, "error": …}`; a rate limit is HTTP 429
/// with `Retry-After` and `ratelimited`. `chat.postMessage` takes JSON only with a JSON
/// `Content-Type`, needs a known `channel` (id or `#name`) and `text` or `blocks`, checks
/// `metadata` (`event_type` and an object `event_payload`) and Slack's limits. `conversations.history`
/// takes its arguments in the query, a channel **id** only, returns messages newest first after
/// `oldest` (`inclusive`), metadata only with `include_all_metadata`, paginated by `limit` and
/// `cursor`. `chat.delete` needs `channel` (id) and `ts`; an unknown `ts` is `message_not_found`.
final class FakeSlackAPI: @unchecked Sendable {
    struct Message {
        var channel: String
        var ts: String
        var text: String
        var blocks: [[String: Any]]
        var metadata: [String: Any]?
    }

    enum Fault {
        /// The message is stored, then the connection is closed without an answer.
        case loseAnswer
        /// The message is stored and the answer held back this long (a kill lands meanwhile).
        case answerLate(seconds: Double)
        /// An HTTP status with Slack's body, nothing stored.
        case status(Int)
        /// HTTP 429 with `Retry-After: seconds`, nothing stored.
        case rateLimited(seconds: Int)
    }

    let token = "xoxb-1234-5678-FAKEBOTTOKEN"
    let channels = ["C0RELEASES": "releases", "C0GENERAL": "general"]
    private let lock = NSLock()
    private var stored: [Message] = []
    private var faults: [(method: String, fault: Fault)] = []
    private var calls: [String] = []
    private var clock = 0.0
    private(set) var server: TestServer?

    var apiURL: String { (server?.baseURL ?? "") + "/api" }
    var messages: [Message] { lock.withLock { stored } }
    var log: [String] { lock.withLock { calls } }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }

    /// The next call of `method` (`chat.postMessage`) meets `fault`.
    func inject(_ fault: Fault, on method: String) {
        lock.withLock { faults.append((method, fault)) }
    }

    private func takeFault(_ method: String) -> Fault? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { $0.method == method }) else { return nil }
            return faults.remove(at: index).fault
        }
    }

    private func error(_ code: String, status: Int = 200, headers: [String: String] = [:]) -> Response {
        Reply.json(status, ["ok": false, "error": code], headers: headers)
    }

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let (bytes, _) = try await request.readBody()
        let method = path.hasPrefix("/api/") ? String(path.dropFirst(5)) : path
        lock.withLock { calls.append("\(request.method.rawValue) \(method)") }
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer ") else { return error("not_authed") }
        guard authorization == "Bearer \(token)" else { return error("invalid_auth") }
        var late = 0.0
        var lose = false
        switch takeFault(method) {
        case .status(let status)?: return error("internal_error", status: status)
        case .rateLimited(let seconds)?: return error("ratelimited", status: 429, headers: ["Retry-After": "\(seconds)"])
        case .loseAnswer?: lose = true
        case .answerLate(let seconds)?: late = seconds
        case nil: break
        }
        let response: Response
        switch method {
        case "chat.postMessage": response = postMessage(request, bytes)
        case "conversations.history": response = history(query)
        case "chat.delete": response = delete(request, bytes)
        default: return error("unknown_method", status: 404)
        }
        if late > 0 { try await Task.sleep(nanoseconds: UInt64(late * 1_000_000_000)) }
        if lose {
            try await context.channel.close()
            throw CancellationError()
        }
        return response
    }

    private func jsonArguments(_ request: Request, _ bytes: [UInt8]) -> [String: Any]? {
        // Slack parses a JSON body only when the Content-Type says JSON.
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }

    private func channelID(_ given: String?) -> String? {
        guard let given else { return nil }
        if channels[given] != nil { return given }
        return channels.first { "#" + $0.value == given }?.key
    }

    private func postMessage(_ request: Request, _ bytes: [UInt8]) -> Response {
        guard let arguments = jsonArguments(request, bytes) else { return error("invalid_arguments") }
        guard let channel = channelID(arguments["channel"] as? String) else { return error("channel_not_found") }
        let text = arguments["text"] as? String ?? ""
        let blocks = arguments["blocks"] as? [[String: Any]] ?? []
        if text.isEmpty && blocks.isEmpty { return error("no_text") }
        if text.utf16.count > 40_000 { return error("msg_too_long") }
        if blocks.count > 50 { return error("invalid_blocks") }
        var metadata: [String: Any]?
        if let given = arguments["metadata"] {
            guard let object = given as? [String: Any], let type = object["event_type"] as? String, !type.isEmpty,
                  object["event_payload"] is [String: Any] else { return error("invalid_metadata_format") }
            metadata = object
        }
        let ts: String = lock.withLock {
            clock = max(clock + 0.000_01, Date().timeIntervalSince1970)
            let ts = String(format: "%.6f", clock)
            stored.append(Message(channel: channel, ts: ts, text: text, blocks: blocks, metadata: metadata))
            return ts
        }
        var message: [String: Any] = ["type": "message", "bot_id": "B0SHIPLANE", "text": text, "ts": ts]
        if let metadata { message["metadata"] = metadata }
        return Reply.json(200, ["ok": true, "channel": channel, "ts": ts, "message": message])
    }

    private func history(_ query: [String: String]) -> Response {
        guard let channel = query["channel"], channels[channel] != nil else { return error("channel_not_found") }
        let oldest = Double(query["oldest"] ?? "0") ?? 0
        let inclusive = query["inclusive"] == "true" || query["inclusive"] == "1"
        let withMetadata = query["include_all_metadata"] == "true" || query["include_all_metadata"] == "1"
        let limit = min(999, max(1, Int(query["limit"] ?? "100") ?? 100))
        let start = Int(query["cursor"] ?? "0") ?? 0
        let matching = messages.filter { $0.channel == channel }
            .filter { (Double($0.ts) ?? 0) > oldest || (inclusive && (Double($0.ts) ?? 0) == oldest) }
            .reversed().map { message -> [String: Any] in
                var entry: [String: Any] = ["type": "message", "bot_id": "B0SHIPLANE", "text": message.text, "ts": message.ts]
                if withMetadata, let metadata = message.metadata { entry["metadata"] = metadata }
                return entry
            }
        let page = Array(matching.dropFirst(start).prefix(limit))
        let more = start + page.count < matching.count
        return Reply.json(200, ["ok": true, "messages": page, "has_more": more,
                                "response_metadata": ["next_cursor": more ? "\(start + page.count)" : ""]])
    }

    private func delete(_ request: Request, _ bytes: [UInt8]) -> Response {
        guard let arguments = jsonArguments(request, bytes) else { return error("invalid_arguments") }
        guard let channel = arguments["channel"] as? String, channels[channel] != nil else { return error("channel_not_found") }
        guard let ts = arguments["ts"] as? String else { return error("message_not_found") }
        let removed: Bool = lock.withLock {
            guard let index = stored.firstIndex(where: { $0.channel == channel && $0.ts == ts }) else { return false }
            stored.remove(at: index)
            return true
        }
        return removed ? Reply.json(200, ["ok": true, "channel": channel, "ts": ts]) : error("message_not_found")
    }
}
