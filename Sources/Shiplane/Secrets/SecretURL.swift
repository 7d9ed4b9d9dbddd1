import Foundation

/// A secret value that is a URL (`SLACK_WEBHOOK_URL`, a webhook's address, `DATABASE_URL`):
/// where it is printed, its scheme, host and port stay readable and only what can hold a secret
/// is hidden — the user information, the path (webhooks keep their token there), the query's
/// values and the fragment. `http://127.0.0.1:9/hook` reads `http://127.0.0.1:9/***`, so an
/// error can say which server did not answer.
struct SecretURL: Equatable {
    /// The URL as configured.
    var value: String
    /// The URL as printed.
    var shown: String
    /// Its parts that look like tokens (a password, a long path segment or query value with
    /// letters and digits), hidden wherever they appear on their own too.
    var tokens: [String]

    /// Reads `value` as a URL with a scheme and a host; nil for anything else.
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed == value, value.contains("://"), !value.contains(where: { $0.isWhitespace }),
              let components = URLComponents(string: value), let scheme = components.scheme,
              let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        let mask = SecretRedactor.mask
        var shown = scheme + "://"
        var tokens: [String] = []
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            shown += mask + "@"
            tokens += [components.percentEncodedPassword, components.password].compactMap { $0 }
        }
        shown += host + (components.port.map { ":\($0)" } ?? "")
        let path = components.percentEncodedPath
        if !path.isEmpty && path != "/" {
            shown += "/" + mask
            tokens += path.split(separator: "/").map(String.init).filter(Self.looksLikeAToken)
        }
        if let items = components.percentEncodedQueryItems {
            shown += "?" + items.map { $0.value == nil ? $0.name : "\($0.name)=\(mask)" }.joined(separator: "&")
            tokens += items.compactMap(\.value).filter(Self.looksLikeAToken)
        }
        if let fragment = components.percentEncodedFragment {
            shown += "#" + mask
            if Self.looksLikeAToken(fragment) { tokens.append(fragment) }
        }
        self.value = value
        self.shown = shown
        self.tokens = tokens.filter { $0.count >= SecretRedactor.minimumSecretLength }
    }

    /// Long enough and mixed enough to be a token rather than a word of the address.
    static func looksLikeAToken(_ text: String) -> Bool {
        let hasDigit = text.contains(where: \.isNumber), hasLetter = text.contains(where: \.isLetter)
        return (text.count >= 8 && hasDigit && hasLetter) || text.count >= 16
    }
}
