import Foundation
import Shiplane

/// Where rendered text goes: standard output or error, with colour only on a terminal.
///
/// Colour: see `usesColor(isTerminal:noColorFlag:environment:)`. Every line passes through the
/// redactor first.
package final class Terminal: @unchecked Sendable {
    // @unchecked: the descriptor and colour are set once in `init`; `storedRedactor` is read and
    // written under `lock`, and each write to the descriptor holds it too.
    package enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", cyan = "36"
    }

    private let lock = NSLock()
    /// The file descriptor written to: 1 or 2.
    private let descriptor: Int32
    package let usesColor: Bool
    private var storedRedactor: SecretRedactor
    /// What every line passes through before it is written (replaced when secrets become known).
    package var redactor: SecretRedactor {
        get { lock.withLock { storedRedactor } }
        set { lock.withLock { storedRedactor = newValue } }
    }

    package init(standardError: Bool = false, environment: [String: String], noColor: Bool, redactor: SecretRedactor) {
        descriptor = standardError ? 2 : 1
        // Under the supervisor the streams are pipes to it; it says whether they end in a terminal.
        let isTerminal = isatty(standardError ? 2 : 1) == 1
            || environment[standardError ? "SHIPLANE_STDERR_IS_TERMINAL" : "SHIPLANE_STDOUT_IS_TERMINAL"] == "1"
        usesColor = Self.usesColor(isTerminal: isTerminal, noColorFlag: noColor, environment: environment)
        storedRedactor = redactor
    }

    /// Whether to write ANSI colour, first rule that applies: `--no-color` → no; `NO_COLOR` set
    /// and not empty (no-color.org) → no; `FORCE_COLOR` (force-color.org) or `CLICOLOR_FORCE` set,
    /// not empty and not `0` or `false` → yes, even into a pipe or a CI log; `CLICOLOR=0` or
    /// `TERM=dumb` → no; otherwise yes only on a terminal.
    static func usesColor(isTerminal: Bool, noColorFlag: Bool, environment: [String: String]) -> Bool {
        func isSet(_ name: String) -> Bool {
            guard let value = environment[name] else { return false }
            return !value.isEmpty && value != "0" && value.lowercased() != "false"
        }
        if noColorFlag { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if isSet("FORCE_COLOR") || isSet("CLICOLOR_FORCE") { return true }
        if environment["CLICOLOR"] == "0" || environment["TERM"] == "dumb" { return false }
        return isTerminal
    }

    /// Writes one line (a newline is added), redacted.
    package func line(_ text: String) {
        lock.lock()
        let safe = storedRedactor.redact(text)
        writeAll(safe + "\n")
        lock.unlock()
    }

    /// Writes text as it is (no newline added), redacted.
    package func write(_ text: String) {
        lock.lock()
        let safe = storedRedactor.redact(text)
        writeAll(safe)
        lock.unlock()
    }

    /// Wraps text in an ANSI style when colour is on.
    package func styled(_ text: String, _ styles: Style...) -> String {
        guard usesColor, !styles.isEmpty else { return text }
        return "\u{1B}[" + styles.map(\.rawValue).joined(separator: ";") + "m" + text + "\u{1B}[0m"
    }
}

extension Terminal {
    fileprivate func writeAll(_ text: String) {
        Shiplane.writeAll(Array(text.utf8), to: descriptor)
    }
}
