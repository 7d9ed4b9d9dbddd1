import Foundation

/// A complete HTTP response: status, headers and the collected body.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers as received, in order.
    public var headers: [(name: String, value: String)]
    /// The body, collected up to the transport's limit.
    public var body: [UInt8]

    /// Creates a response; senders and test doubles build one per answer.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// True for 2xx statuses.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The media type without parameters, lowercased ("application/json").
    public var mediaType: String? {
        header("content-type").map {
            String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// The first `limit` characters of the body, on one line, for error messages.
    package func bodySnippet(limit: Int = 200) -> String {
        let collapsed = text.prefix(limit).map { $0.isNewline ? " " : String($0) }.joined()
        return text.count > limit ? collapsed + "…" : collapsed
    }
}
