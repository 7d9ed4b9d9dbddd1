import Foundation

/// Checks webhook and upload URLs before anything is sent.
package enum WebhookURL {
    /// Accepts absolute http/https URLs with a host.
    /// - Throws: `NotifyError.invalidURL` saying what is wrong (the URL shown redacted).
    package static func validate(_ url: String, redactor: SecretRedactor = SecretRedactor()) throws {
        let shown = redactor.redact(url)
        guard let components = URLComponents(string: url.trimmingCharacters(in: .whitespaces)) else {
            throw NotifyError.invalidURL(shown, reason: "it is not a valid URL")
        }
        guard let scheme = components.scheme?.lowercased() else {
            throw NotifyError.invalidURL(shown, reason: "it has no scheme")
        }
        guard scheme == "http" || scheme == "https" else {
            throw NotifyError.invalidURL(shown, reason: "the scheme \(scheme) is not http or https")
        }
        guard let host = components.host, !host.isEmpty else {
            throw NotifyError.invalidURL(shown, reason: "it has no host")
        }
    }
}
