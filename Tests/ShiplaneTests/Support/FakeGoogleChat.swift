import Foundation
import Hummingbird

/// An in-process Google Chat incoming webhook, written from Google's reference for
/// `spaces.messages.create` (https://developers.google.com/chat/api/reference/rest/v1/spaces.messages/create)
/// and the webhook guide (https://developers.google.com/workspace/chat/quickstart/webhooks):
/// `POST /v1/spaces/{space}/messages?key=…&token=…` with a JSON Message body.
///
/// Checked strictly: the method and path (else 404 `NOT_FOUND`); the query holds only the
/// documented parameters (`key`, `token`, `threadKey`, `requestId`, `messageReplyOption`,
/// `messageId`), an unknown one is 400; the API key (400 `INVALID_ARGUMENT`, "API key not
/// valid") and the webhook token (401 `UNAUTHENTICATED`); `Content-Type` JSON; a JSON object
/// with only Message fields a webhook may send (an unknown name is 400, "Cannot find field", as
/// Google's JSON transcoding answers); a message with no `text` and no `cardsV2` is 400; a body over
/// 32,000 bytes or a text over 4,096 characters is 400. Errors are Google's
/// `{"error": {"code", "message", "status"}}`. A success is 200 with the Message: what was
/// sent, plus `name` and `thread.name` (the reference: a webhook's answer populates only those).
final class FakeGoogleChat: @unchecked Sendable {
    let space = "AAAAbcdEfG0"
    let key = "AIzaSyFAKEchatKEY0123456789abcdefghijk"
    let token = "chatTOKENsecret-0123456789_abcdefghijKLMNOP%3D"
    private let lock = NSLock()
    private var messages: [[String: Any]] = []
    private var requests: [String] = []
    private var faults: [WebhookFault] = []
    private(set) var server: TestServer?

    var webhookURL: String { (server?.baseURL ?? "") + "/v1/spaces/\(space)/messages?key=\(key)&token=\(token)" }
    /// The token as it arrives, decoded from the query.
    var decodedToken: String { token.removingPercentEncoding ?? token }
    var received: [[String: Any]] { lock.withLock { messages } }
    /// Every request as "METHOD path content-type size", in order.
    var log: [String] { lock.withLock { requests } }

    static let queryParameters: Set<String> = ["key", "token", "threadKey", "requestId", "messageReplyOption", "messageId"]
    /// Message fields a webhook may send (the rest are output only or need app authentication).
    static let messageFields: Set<String> = ["text", "cardsV2", "thread", "fallbackText", "accessoryWidgets", "privateMessageViewer"]

    func start() async throws {
        server = try await TestServer.start { [self] request, context in try await self.handle(request, context) }
    }

    func stop() { server?.stop() }
    func inject(_ fault: WebhookFault) { lock.withLock { faults.append(fault) } }

    private func error(_ code: Int, _ status: String, _ message: String) -> Response {
        Reply.json(code, ["error": ["code": code, "message": message, "status": status]])
    }

    private func handle(_ request: Request, _ context: FakeContext) async throws -> Response {
        let (path, query) = request.pathAndQuery
        let (bytes, count) = try await request.readBody()
        let contentType = request.header("Content-Type") ?? ""
        lock.withLock { requests.append("\(request.method) \(path) \(contentType) \(count)") }
        guard request.method == .post, path == "/v1/spaces/\(space)/messages" else {
            return error(404, "NOT_FOUND", "Requested entity was not found.")
        }
        if let unknown = query.keys.sorted().first(where: { !Self.queryParameters.contains($0) }) {
            return error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot bind query parameter. Field '\(unknown)' could not be found in request message.")
        }
        guard query["key"] == key else { return error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.") }
        guard query["token"] == decodedToken else { return error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.") }
        switch lock.withLock({ faults.isEmpty ? nil : faults.removeFirst() }) {
        case .status(let status)?: return error(status, status == 503 ? "UNAVAILABLE" : "INTERNAL", "The service is currently unavailable.")
        case .rateLimited?: return error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")
        case .loseAnswer?:
            if let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] { lock.withLock { messages.append(message) } }
            try await context.channel.close()
            throw CancellationError()
        case nil: break
        }
        guard contentType.lowercased().hasPrefix("application/json") else {
            return error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected token.")
        }
        if count > 32_000 { return error(400, "INVALID_ARGUMENT", "Message too large: the maximum message size is 32,000 bytes.") }
        guard let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return error(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected token.")
        }
        if let problem = Self.invalid(message) { return error(400, "INVALID_ARGUMENT", problem) }
        lock.withLock { messages.append(message) }
        var answer = message
        let id = UUID().uuidString.prefix(11)
        answer["name"] = "spaces/\(space)/messages/\(id).\(id)"
        answer["thread"] = ["name": "spaces/\(space)/threads/\(id)"]
        return Reply.json(200, answer)
    }

    /// What is wrong with a Message a webhook may not send, if anything.
    static func invalid(_ message: [String: Any]) -> String? {
        if let unknown = message.keys.sorted().first(where: { !messageFields.contains($0) }) {
            return "Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message': Cannot find field."
        }
        if let text = message["text"], !(text is String) { return "Invalid value at 'message.text' (TYPE_STRING)" }
        let text = message["text"] as? String ?? ""
        if text.isEmpty && message["cardsV2"] == nil { return "Message cannot be empty. Discarded or invalid fields: text, cardsV2." }
        if text.unicodeScalars.count > 4_096 { return "Message text is too long: at most 4,096 characters." }
        return nil
    }
}
