import Foundation

/// The options every command takes, wherever they stand on the command line (before `--`).
///
/// Lanes cannot declare options with these names.
package struct GlobalOptions: Equatable, Sendable {
    package var dryRun = false
    package var verbose = false
    package var reportJSON: String?
    package var junit: String?
    package var noRollback = false
    package var environmentName: String?
    package var noColor = false
    /// Skip git's pre-commit, commit-msg and pre-push hooks.
    package var noVerify = false
    /// `--ci github|gitlab|none`: CI-native output forced or turned off (else detected).
    package var ci: String?

    package init() {}

    static let flagNames: Set<String> = ["--dry-run", "--verbose", "--no-rollback", "--no-color", "--no-verify"]
    static let valueNames: Set<String> = ["--report-json", "--junit", "--env", "--ci"]

    /// Splits the command line into global options and the rest, in order.
    /// - Throws: `UsageError` when a global option that takes a value has none.
    package static func extract(from arguments: [String]) throws -> (GlobalOptions, [String]) {
        var options = GlobalOptions()
        var rest: [String] = []
        var index = 0
        var passThrough = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if passThrough { rest.append(argument); continue }
            if argument == "--" { passThrough = true; rest.append(argument); continue }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flagNames.contains(name) && inlineValue == nil {
                switch name {
                case "--dry-run": options.dryRun = true
                case "--verbose": options.verbose = true
                case "--no-rollback": options.noRollback = true
                case "--no-verify": options.noVerify = true
                default: options.noColor = true
                }
            } else if valueNames.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value", suggestion: usageHint(for: name))
                }
                guard !value.isEmpty else { throw UsageError("\(name) needs a value", suggestion: usageHint(for: name)) }
                if value.hasPrefix("-") {
                    // `--report-json --no-color` would write a file named `--no-color`.
                    throw UsageError(
                        "\(name) needs a value, and \(value) looks like an option", suggestion: usageHint(for: name)
                            + (name == "--report-json" || name == "--junit" ? " (a file whose name starts with - is written ./\(value))" : "")
                            + "; nothing was run"
                    )
                }
                switch name {
                case "--report-json": options.reportJSON = value
                case "--junit": options.junit = value
                case "--ci":
                    guard ["github", "gitlab", "none"].contains(value) else {
                        throw UsageError("--ci takes github, gitlab or none, not \(value)", suggestion: "write --ci github, --ci gitlab or --ci none")
                    }
                    options.ci = value
                default: options.environmentName = value
                }
            } else {
                rest.append(argument)
            }
        }
        return (options, rest)
    }

    private static func usageHint(for name: String) -> String {
        switch name {
        case "--env": "write --env NAME to load .env.NAME"
        case "--ci": "write --ci github, --ci gitlab or --ci none"
        default: "write \(name) FILE"
        }
    }

    /// The options as arguments again, for handing to the lane executable.
    var asArguments: [String] {
        var arguments: [String] = []
        if dryRun { arguments.append("--dry-run") }
        if verbose { arguments.append("--verbose") }
        if noRollback { arguments.append("--no-rollback") }
        if noColor { arguments.append("--no-color") }
        if noVerify { arguments.append("--no-verify") }
        if let reportJSON { arguments += ["--report-json", reportJSON] }
        if let junit { arguments += ["--junit", junit] }
        if let environmentName { arguments += ["--env", environmentName] }
        if let ci { arguments += ["--ci", ci] }
        return arguments
    }
}
