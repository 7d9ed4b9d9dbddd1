import Foundation

/// Uploads a file to any HTTP endpoint with PUT or POST, streaming it from disk.
///
/// The URL may hold `{name}` and `{version}` placeholders, replaced percent-encoded.
package struct HTTPUploadTarget: Sendable {
    /// The URL, with `{name}` and `{version}` placeholders.
    package var urlTemplate: String
    /// PUT or POST.
    package var method: HTTPRequestMethod
    /// Headers sent with every upload; `Content-Type` is added from the file name unless given.
    package var headers: [(name: String, value: String)]
    /// Seconds one upload may take.
    package var timeout: Double
    /// Sends the requests, with retries and redaction.
    package var transport: HTTPTransport

    /// Creates a target for `urlTemplate`, sent through `transport`.
    package init(urlTemplate: String, method: HTTPRequestMethod = .put, headers: [(name: String, value: String)] = [],
                timeout: Double = 600, transport: HTTPTransport) {
        self.urlTemplate = urlTemplate
        self.method = method
        self.headers = headers
        self.timeout = timeout
        self.transport = transport
    }

    /// The URL for one file, placeholders filled in.
    /// - Throws: `HTTPTransportError.invalidURL` when the result is not an http(s) URL with a host.
    package func url(name: String, version: String?) throws -> String {
        var url = urlTemplate.replacingOccurrences(of: "{name}", with: URITemplate.percentEncode(name, allowReserved: false))
        if let version {
            url = url.replacingOccurrences(of: "{version}", with: URITemplate.percentEncode(version, allowReserved: false))
        }
        try WebhookURL.validate(url, redactor: transport.redactor)
        return url
    }

    /// Uploads `file` (named `name`, default its last path component) and returns the server's response.
    /// - Throws: `HTTPTransportError` from the transport, or `UploadError` for a non-2xx answer.
    @discardableResult
    package func upload(file: String, name: String? = nil, version: String? = nil, contentType: String? = nil) async throws -> HTTPResponse {
        let assetName = name ?? URL(fileURLWithPath: file).lastPathComponent
        let target = try url(name: assetName, version: version)
        var allHeaders = headers
        if !allHeaders.contains(where: { $0.name.lowercased() == "content-type" }) {
            allHeaders.append(("Content-Type", contentType ?? ContentType.forFileName(assetName)))
        }
        let response = try await transport.send(HTTPRequest(method: method, url: target, headers: allHeaders, body: .file(path: file), timeout: timeout))
        guard response.isSuccess else {
            throw UploadError(name: assetName, url: transport.redactor.redact(target), status: response.status,
                              bodySnippet: transport.redactor.redact(response.bodySnippet()))
        }
        return response
    }
}

/// An upload the server refused.
package struct UploadError: ReportableError {
    /// The file's name, as uploaded.
    package var name: String
    /// The URL it was sent to, redacted.
    package var url: String
    /// The server's status code.
    package var status: Int
    /// The start of the server's answer, redacted.
    package var bodySnippet: String

    /// Names the file, the URL and the status.
    package var message: String { "uploading \(name) to \(url) failed with HTTP \(status)" }
    /// The status and the start of the answer.
    package var info: [(key: String, value: String)] { [("status", String(status)), ("body", bodySnippet)] }
    /// What to check for 401, 403, 404 and 413; nil for other statuses.
    package var suggestion: String? {
        switch status {
        case 401, 403: return "check the credentials in the upload headers"
        case 404: return "check the upload URL"
        case 413: return "the server rejects files this large"
        default: return nil
        }
    }
}
