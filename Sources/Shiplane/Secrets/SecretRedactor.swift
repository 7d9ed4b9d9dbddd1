import Foundation

/// Replaces secret values and known token shapes in text with `***`.
///
/// Configured values (at least `minimumSecretLength` characters) are replaced wherever they occur,
/// longest first; a value that is a URL keeps its scheme, host and port readable and has its
/// secret parts hidden (`SecretURL`). Token shapes are found by one pass over the UTF-8 bytes: GitHub tokens (`ghp_`,
/// `gho_`, `ghs_`, `ghu_`, `ghr_`, `github_pat_`), GitLab tokens (`glpat-`, `glcbt-`, `gldt-`, `glptt-`), Slack tokens (`xoxb-`, `xoxp-`, ...), Slack
/// webhook URLs, `Bearer <token>` and `user:password@` in URLs.
package struct SecretRedactor: Sendable {
    /// Shorter values are ignored: redacting "a" or "on" would shred every message.
    package static let minimumSecretLength = 4
    /// What a redacted secret is replaced with.
    package static let mask = "***"

    /// The configured secret values, longest first (for a URL, the tokens in it).
    package private(set) var secrets: [String]
    /// The configured values that are URLs, longest first, each with the form it is shown in.
    private(set) var urls: [SecretURL] = []

    /// Creates a redactor for the given secret values (short and empty values are ignored).
    package init(secrets: [String] = []) {
        self.secrets = []
        add(secrets)
    }

    /// Adds more secret values. A value of several lines also adds each line (a key printed line
    /// by line must not show any of them).
    package mutating func add(_ values: [String]) {
        var plain: [String] = []
        for value in Self.withLines(values) {
            if let url = SecretURL(value) {
                if !urls.contains(url) { urls.append(url) }
                plain += url.tokens
            } else {
                plain.append(value)
            }
        }
        urls.sort { $0.value.utf8.count > $1.value.utf8.count }
        let usable = plain.filter { $0.count >= Self.minimumSecretLength }
        secrets = Array(Set(secrets + usable)).sorted { $0.utf8.count != $1.utf8.count ? $0.utf8.count > $1.utf8.count : $0 < $1 }
    }

    /// A copy that also redacts `values`.
    package func adding(_ values: [String]) -> SecretRedactor {
        var copy = self
        copy.add(values)
        return copy
    }

    /// `text` with every secret (these, and those registered while the run goes, see
    /// `RuntimeSecrets`) and every token shape replaced by `***`.
    package func redact(_ text: String) -> String {
        var result = text
        for url in urls where result.contains(url.value) {
            result = result.replacingOccurrences(of: url.value, with: url.shown)
        }
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        for secret in RuntimeSecrets.values where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        return TokenShapeScanner.redact(result)
    }

    /// The values, and for each of several lines, its lines (without their line ends) too; and
    /// each of them as a JSON string holds it (`"` as `\"`, `\` as `\\`, `/` as `\/` or not, control
    /// characters escaped), so a value inside a JSON document — the run record, a report — is
    /// found in the form it was written in.
    static func withLines(_ values: [String]) -> [String] {
        var all = values
        for value in values where value.contains(where: \.isNewline) {
            all += value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for value in all where value.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0 == "/" || $0.value < 0x20 }) {
            for escaped in jsonEscaped(value) where escaped != value && !all.contains(escaped) { all.append(escaped) }
        }
        return all
    }

    /// `value` as JSONEncoder writes it inside a string, with slashes escaped and without.
    private static func jsonEscaped(_ value: String) -> [String] {
        [JSONEncoder.OutputFormatting(), .withoutEscapingSlashes].compactMap { format in
            let encoder = JSONEncoder()
            encoder.outputFormatting = format
            guard let data = try? encoder.encode([value]) else { return nil }
            let text = String(decoding: data, as: UTF8.self)
            guard text.hasPrefix("[\""), text.hasSuffix("\"]") else { return nil }
            return String(text.dropFirst(2).dropLast(2))
        }
    }

    /// An error whose message, facts, suggestion and causes have been redacted, keeping its tree.
    package func redact(_ error: any Error) -> RedactedError {
        if let already = error as? RedactedError { return RedactedError(wrapping: already, redactor: self) }
        return RedactedError(wrapping: error, redactor: self)
    }
}

/// An error with secrets removed from everything it says, wrapping the original's shape.
public struct RedactedError: ReportableError {
    /// The wrapped error's message, redacted.
    public let message: String
    /// The wrapped error's facts, with their values redacted.
    public let info: [(key: String, value: String)]
    /// The wrapped error's suggestion, redacted.
    public let suggestion: String?
    /// The wrapped error's causes, each redacted.
    public let underlyingErrors: [any Error]
    /// The wrapped error's category (`interrupted` for a cancellation, `failure` for a plain error).
    public let category: ErrorCategory

    init(wrapping error: any Error, redactor: SecretRedactor) {
        if let reportable = error as? any ReportableError {
            message = redactor.redact(reportable.message)
            info = reportable.info.map { ($0.key, redactor.redact($0.value)) }
            suggestion = reportable.suggestion.map { redactor.redact($0) }
            underlyingErrors = reportable.underlyingErrors.map { redactor.redact($0) }
            category = reportable.category
        } else {
            message = redactor.redact(String(describing: error))
            info = []
            suggestion = nil
            underlyingErrors = []
            category = error is CancellationError ? .interrupted : .failure
        }
    }
}

/// Secrets that become known while a run goes (values passed to `lane.sh(..., environment:)` under
/// names that look secret, `LaneContext.registerSecret`): every redactor of the process redacts
/// them from then on. In a lane program under a supervisor, each is also written to the
/// supervisor's secret channel before `register` returns, so what the lane prints next is redacted
/// there too (the supervisor reads the channel before it redacts the output that follows).
package enum RuntimeSecrets {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered: [String] = []
    /// The write end of the supervisor's secret channel, when there is one (under `lock`).
    nonisolated(unsafe) private static var channel: Int32 = -1

    /// Who is told of new values (under `lock`): the run's record, whose earlier lines a new
    /// secret may be in. In the order they came (their ids grow). A list, not a dictionary: a
    /// dictionary keyed by `Int` made the lane program's start look its `Hashable` conformance up,
    /// a walk over every conformance record of the program (`ProcessEnvironment`).
    nonisolated(unsafe) private static var observers: [(id: Int, observer: @Sendable ([String]) -> Void)] = []
    nonisolated(unsafe) private static var nextObserver = 0

    /// Registers values as secrets (short ones are ignored, as in `SecretRedactor`); then tells
    /// the observers which were new, outside the registry's lock (they redact with `values`,
    /// which takes it).
    package static func register(_ values: [String]) {
        let usable = SecretRedactor.withLines(values).filter { $0.count >= SecretRedactor.minimumSecretLength }
        guard !usable.isEmpty else { return }
        let (new, toTell): ([String], [@Sendable ([String]) -> Void]) = lock.withLock {
            let new = usable.filter { !registered.contains($0) }
            registered = Array(Set(registered + usable)).sorted { $0.utf8.count > $1.utf8.count }
            if channel >= 0, !new.isEmpty { _ = writeAll(channelLines(new), to: channel) }
            return (new, new.isEmpty ? [] : observers.map(\.observer))
        }
        for observer in toTell { observer(new) }
    }

    /// Calls `observer` with the values each registration brings that were not known before;
    /// returns the id that `stopObserving` takes.
    package static func observe(_ observer: @escaping @Sendable ([String]) -> Void) -> Int {
        lock.withLock {
            nextObserver += 1
            observers.append((nextObserver, observer))
            return nextObserver
        }
    }

    /// Stops calling the observer `id`.
    package static func stopObserving(_ id: Int) {
        lock.withLock { observers.removeAll { $0.id == id } }
    }

    /// Sends every value registered from now on (and those registered so far) to `descriptor`,
    /// the supervisor's secret channel.
    package static func forward(to descriptor: Int32) {
        lock.withLock {
            channel = descriptor
            if !registered.isEmpty { _ = writeAll(channelLines(registered), to: descriptor) }
        }
    }

    /// `values` as the secret channel carries them: one base64 line per value (a secret may hold
    /// any byte, a newline included). A plain loop: `joined()` looks its element's conformances
    /// up at run time, a scan of all of them on the start of every lane.
    private static func channelLines(_ values: [String]) -> [UInt8] {
        var lines: [UInt8] = []
        for value in values {
            lines += Array(Data(value.utf8).base64EncodedString().utf8)
            lines.append(UInt8(ascii: "\n"))
        }
        return lines
    }

    /// Registers the values in complete base64 lines read from a secret channel; returns the
    /// bytes of an incomplete last line, to be completed by the next read.
    package static func registerChannelLines(_ bytes: [UInt8]) -> [UInt8] {
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return bytes }
        let values = bytes[..<end].split(separator: UInt8(ascii: "\n")).compactMap {
            Data(base64Encoded: Data($0)).map { String(decoding: $0, as: UTF8.self) }
        }
        register(values)
        return Array(bytes[(end + 1)...])
    }

    /// The registered values, longest first.
    static var values: [String] { lock.withLock { registered } }
}
