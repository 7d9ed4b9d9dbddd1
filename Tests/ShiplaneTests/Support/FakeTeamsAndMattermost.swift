import Foundation
import Hummingbird

/// Faults the announcement stand-ins inject into their next request.
enum WebhookFault { case loseAnswer, status(Int), rateLimited(seconds: Int) }

/// An in-process Microsoft Teams Workflows webhook ("When a Teams webhook request is received"):
/// `POST …/workflows/{id}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=…&sv=1.0&sig=…`
/// with `Content-Type: application/json`, answered 202 with no body. The body must be a message
/// (`type` `message`) whose `attachments` hold Adaptive Cards (`contentType`
/// `application/vnd.microsoft.card.adaptive`, `content.type` `AdaptiveCard`, a `version`, a `body`
/// of known elements); otherwise 400 with `{"error": {"code": "InvalidRequestContent", …}}`. A
/// wrong `sig` is 401 (`DirectApiAuthorizationRequired`), a rate limit 429 with `Retry-After`.
/// A message over Teams' 28 KB is answered 202 like any other — the trigger accepts it and the
/// flow then fails to post it, as Workflows webhooks do — and lands in `dropped`, never in `received`.
final class FakeTeams: @unchecked Sendable {
    let signature = "TeamsSigSECRET0123456789abcdef"
    private let lock = NSLock()
    private var cards: [[String: Any]] = []
    private var faults: [WebhookFault] = []
    private(set) var server: TestServer?

    var webhookURL: String { (server?.baseURL ?? "") + "/workflows/5f1c/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=\(signature)" }
    var received: [[String: Any]] { lock.withLock { cards } }
    /// The sizes of messages the flow accepted and then failed to post (over 28 KB).
    var dropped: [Int] { lock.withLock { tooLarge } }
    private var tooLarge: [Int] = []

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }
    func inject(_ fault: WebhookFault) { lock.withLock { faults.append(fault) } }

    private func error(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) -> Response {
        Reply.json(status, ["error": ["code": code, "message": message]], headers: headers)
    }

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let (bytes, count) = try await request.readBody()
        guard request.method == .post, path == "/workflows/5f1c/triggers/manual/paths/invoke" else { return error(404, "WorkflowNotFound", "The workflow was not found.") }
        guard query["api-version"] == "2016-06-01", query["sig"] == signature else {
            return error(401, "DirectApiAuthorizationRequired", "The request must be authenticated only by Shared Access scheme.")
        }
        switch lock.withLock({ faults.isEmpty ? nil : faults.removeFirst() }) {
        case .status(let status)?: return error(status, "ServiceUnavailable", "The service is unavailable.")
        case .rateLimited(let seconds)?: return error(429, "WorkflowRequestsThrottled", "Rate limit is exceeded. Try again in \(seconds) seconds.", headers: ["Retry-After": "\(seconds)"])
        case .loseAnswer?:
            if let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] { lock.withLock { cards.append(message) } }
            try await context.channel.close()
            throw CancellationError()
        case nil: break
        }
        if count > 28_000 {
            lock.withLock { tooLarge.append(count) }
            return Reply.empty(202)
        }
        guard request.header("Content-Type")?.lowercased().hasPrefix("application/json") == true,
              let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return error(400, "InvalidRequestContent", "The input body for trigger 'manual' of type 'Request' must be of type JSON.")
        }
        if let problem = Self.invalid(message) { return error(400, "InvalidRequestContent", problem) }
        lock.withLock { cards.append(message) }
        return Reply.empty(202)
    }

    /// What is wrong with a message the Teams flow would not post, if anything.
    static func invalid(_ message: [String: Any]) -> String? {
        guard message["type"] as? String == "message" else { return "type must be message" }
        guard let attachments = message["attachments"] as? [[String: Any]], !attachments.isEmpty else { return "attachments are required" }
        for attachment in attachments {
            guard attachment["contentType"] as? String == "application/vnd.microsoft.card.adaptive" else { return "contentType must be an Adaptive Card" }
            guard let card = attachment["content"] as? [String: Any], card["type"] as? String == "AdaptiveCard" else { return "content must be an AdaptiveCard" }
            guard let version = card["version"] as? String, ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"].contains(version) else { return "unsupported card version" }
            guard let body = card["body"] as? [[String: Any]], !body.isEmpty else { return "the card has no body" }
            for element in body {
                switch element["type"] as? String {
                case "TextBlock": if (element["text"] as? String ?? "").isEmpty { return "a TextBlock needs text" }
                case "FactSet":
                    guard let facts = element["facts"] as? [[String: Any]], facts.allSatisfy({ $0["title"] is String && $0["value"] is String }) else { return "a FactSet needs facts" }
                default: return "unknown element \(element["type"] ?? "")"
                }
            }
            for action in card["actions"] as? [[String: Any]] ?? [] where action["type"] as? String == "Action.OpenUrl" {
                guard let url = action["url"] as? String, URL(string: url)?.scheme != nil else { return "Action.OpenUrl needs a url" }
            }
        }
        return nil
    }
}

/// An in-process Mattermost incoming webhook (`POST /hooks/{key}`), as Mattermost documents it:
/// JSON with `text` (at most 16,383 characters; required unless `attachments`), `channel`,
/// `username`, `icon_url`, `props`, `attachments`; answered 200 `ok` (text/plain). Errors are
/// Mattermost's JSON (`id`, `message`, `status_code`): an unknown key 400
/// `web.incoming_webhook.invalid.app_error`, no text 400 `web.incoming_webhook.text.app_error`, a
/// channel or username override on a webhook that does not allow it 403; rate limits 429 with
/// `X-Ratelimit-Limit`, `X-Ratelimit-Remaining`, `X-Ratelimit-Reset`.
final class FakeMattermost: @unchecked Sendable {
    let key = "mmhookSECRETxyz9876543210"
    var allowsOverrides = true
    private let lock = NSLock()
    private var posts: [[String: Any]] = []
    private var faults: [WebhookFault] = []
    private(set) var server: TestServer?

    var webhookURL: String { (server?.baseURL ?? "") + "/hooks/\(key)" }
    var received: [[String: Any]] { lock.withLock { posts } }

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }
    func inject(_ fault: WebhookFault) { lock.withLock { faults.append(fault) } }

    private func error(_ status: Int, _ id: String, _ message: String, headers: [String: String] = [:]) -> Response {
        Reply.json(status, ["id": id, "message": message, "detailed_error": "", "request_id": "req1", "status_code": status], headers: headers)
    }

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let (path, _) = request.pathAndQuery
        let (bytes, _) = try await request.readBody()
        guard request.method == .post, path == "/hooks/\(key)" else { return error(400, "web.incoming_webhook.invalid.app_error", "Invalid webhook.") }
        switch lock.withLock({ faults.isEmpty ? nil : faults.removeFirst() }) {
        case .status(let status)?: return error(status, "api.context.server_error", "Internal server error.")
        case .rateLimited(let seconds)?:
            return Reply.text(429, "limit exceeded\n", headers: ["X-Ratelimit-Limit": "10", "X-Ratelimit-Remaining": "0",
                                                                  "X-Ratelimit-Reset": "\(seconds)", "Retry-After": "\(seconds)"])
        case .loseAnswer?:
            if let post = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] { lock.withLock { posts.append(post) } }
            try await context.channel.close()
            throw CancellationError()
        case nil: break
        }
        guard let post = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return error(400, "web.incoming_webhook.parse.app_error", "Unable to parse incoming data.")
        }
        let text = post["text"] as? String ?? ""
        if text.isEmpty && (post["attachments"] as? [Any] ?? []).isEmpty { return error(400, "web.incoming_webhook.text.app_error", "No text specified.") }
        if text.unicodeScalars.count > 16_383 { return error(400, "web.incoming_webhook.text.length.app_error", "Text too long.") }
        if !allowsOverrides && (post["channel"] != nil || post["username"] != nil) {
            return error(403, "web.incoming_webhook.channel_locked.app_error", "This webhook is not permitted to post to the requested channel.")
        }
        if let props = post["props"], !(props is [String: Any]) { return error(400, "web.incoming_webhook.parse.app_error", "props must be an object.") }
        lock.withLock { posts.append(post) }
        return Reply.text(200, "ok", contentType: "text/plain")
    }
}
