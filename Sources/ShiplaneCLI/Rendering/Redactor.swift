import Foundation

/// Replaces secrets in text before it is printed or written to a report.
///
/// Redacts every configured secret value and the token shapes Shiplane knows: GitHub tokens
/// (`ghp_`, `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), Slack tokens (`xoxb-`, `xoxp-`, ...),
/// Slack webhook URLs, `Bearer` credentials and passwords in URLs (`https://user:pass@host`).
public struct Redactor: Sendable {
    public static let mask = "***"
    private let secrets: [String]

    public init(secrets: some Sequence<String>) {
        // Longest first, so a secret that contains another is masked whole.
        self.secrets = Set(secrets.filter { $0.count >= 4 }).sorted { $0.count > $1.count }
    }

    private static let patterns: [NSRegularExpression] = [
        #"\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}"#,
        #"\bgithub_pat_[A-Za-z0-9_]{20,}"#,
        #"\bxox[abposr]-[A-Za-z0-9-]{10,}"#,
        #"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"#,
        #"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{8,}"#,
        #"(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"#,
    ].compactMap { try? NSRegularExpression(pattern: $0) }

    public func redact(_ text: String) -> String {
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        guard Self.mightContainToken(result) else { return result }
        for pattern in Self.patterns {
            let range = NSRange(result.startIndex..., in: result)
            result = pattern.stringByReplacingMatches(in: result, range: range, withTemplate: Self.mask)
        }
        return result
    }

    /// A cheap check that skips the regular expressions for ordinary lines.
    private static func mightContainToken(_ text: String) -> Bool {
        text.contains("_") || text.contains("xox") || text.contains("://") || text.range(of: "bearer", options: .caseInsensitive) != nil
    }
}
