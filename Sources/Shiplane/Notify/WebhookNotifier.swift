import Foundation

/// Posts JSON to a generic webhook, from a `{{placeholder}}` template or an `Encodable` value.
package struct WebhookNotifier: Sendable {
    private let url: String
    /// Headers sent with every post, besides `Content-Type: application/json`.
    package var headers: [(name: String, value: String)]
    let transport: HTTPTransport

    /// Creates a notifier that posts to `url`; the URL is added to the redactor, as it often holds a token.
    /// - Throws: `NotifyError.invalidURL` when the URL is not http(s) with a host.
    package init(url: String, headers: [(name: String, value: String)] = [], transport: HTTPTransport) throws {
        var transport = transport
        // Webhook URLs often embed a token in the path or query.
        transport.redactor = transport.redactor.adding([url])
        try WebhookURL.validate(url, redactor: transport.redactor)
        self.url = url
        self.headers = headers
        self.transport = transport
    }

    /// Renders `template` with `values` (JSON-escaped, secrets redacted) and posts it.
    /// - Throws: `NotifyError.invalidTemplate` (unknown placeholders, invalid JSON), `.webhookRejected`, `HTTPTransportError`.
    package func send(template: String, values: [String: String]) async throws {
        let redacted = values.mapValues { transport.redactor.redact($0) }
        let body = try JSONTemplate.render(template, values: redacted)
        try await post(Array(body.utf8))
    }

    /// Posts `value` encoded as JSON.
    package func send<Value: Encodable>(_ value: Value) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        try await post(Array(transport.redactor.redact(text).utf8))
    }

    private func post(_ body: [UInt8]) async throws {
        let request = HTTPRequest(method: .post, url: url, headers: headers + [("Content-Type", "application/json")], body: .bytes(body))
        let response = try await transport.send(request)
        guard response.isSuccess else {
            throw NotifyError.webhookRejected(url: transport.redactor.redact(url), status: response.status,
                                              bodySnippet: transport.redactor.redact(response.bodySnippet()))
        }
    }
}

/// Fills `{{name}}` placeholders in a JSON template with JSON-string-escaped values.
///
/// Placeholders are meant to sit inside JSON strings: `{"text": "Released {{version}}"}`.
package enum JSONTemplate {
    /// The rendered text.
    /// - Throws: `NotifyError.invalidTemplate` listing every unknown placeholder, or when the result is not JSON.
    package static func render(_ template: String, values: [String: String]) throws -> String {
        var output = ""
        var missing: [String] = []
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw NotifyError.invalidTemplate(reason: "a {{ is never closed", details: [])
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let value = values[name] {
                output += escape(value)
            } else if !missing.contains(name) {
                missing.append(name)
            }
            rest = rest[close.upperBound...]
        }
        output += rest
        if !missing.isEmpty {
            throw NotifyError.invalidTemplate(reason: "no value for \(missing.count) placeholder\(missing.count == 1 ? "" : "s")",
                                              details: missing.map { "{{\($0)}}" })
        }
        guard (try? JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed])) != nil else {
            throw NotifyError.invalidTemplate(reason: "the rendered template is not valid JSON", details: [])
        }
        return output
    }

    /// `value` escaped for the inside of a JSON string.
    static func escape(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
