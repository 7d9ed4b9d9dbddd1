import ArgumentParser
import Foundation
import Shiplane

/// Shiplane's documented exit codes (README, "Exit codes").
public enum ShiplaneExitCode: Int32, Sendable {
    case success = 0
    /// A lane or a command failed while running; whatever it changed was rolled back.
    case failure = 1
    /// The command line or an option is wrong: unknown lane, missing or ill-typed option.
    case usage = 2
    /// The lanes in `Lanes/` do not compile.
    case compile = 3
    /// The environment is not usable: not a git repository, no `Lanes/`, no `swiftc`.
    case environment = 4
    /// `auto` found no releasable commit since the last release: nothing was changed.
    case nothingToRelease = 5
    /// A defect in Shiplane itself; the message says what to report.
    case bug = 70
    /// Interrupted (Ctrl-C); whatever the run changed was rolled back.
    case interrupted = 130

    /// The one place errors become exit codes.
    static func `for`(_ error: any Error) -> ShiplaneExitCode {
        switch error {
        case let failure as LaneFailure:
            if failure.interrupted { return .interrupted }
            if failure.causes.contains(where: { ShiplaneExitCode.rootCause(of: $0) is NothingToRelease }) { return .nothingToRelease }
            return .failure
        case is NothingToRelease:
            return .nothingToRelease
        case is UsageError, is ValidationFailure, is DotEnvError, is VersionBumpParseError:
            return .usage
        case is CompileFailure:
            return .compile
        case is EnvironmentProblem, is RepositoryProblem, is CommandNotFound:
            return .environment
        case let reportable as any ReportableError:
            return reportable.isBug ? .bug : .failure
        case is CancellationError:
            return .interrupted
        default:
            return .failure
        }
    }
}

extension ShiplaneExitCode {
    /// The deepest first cause of an error tree.
    static func rootCause(of error: any Error) -> any Error {
        guard let reportable = error as? any ReportableError, let first = reportable.underlyingErrors.first else { return error }
        return rootCause(of: first)
    }
}

/// The command line is wrong: an unknown lane or command, a missing or ill-typed option.
public struct UsageError: ReportableError {
    public var message: String
    public var suggestion: String?
    public var info: [(key: String, value: String)]

    public init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}

/// Something outside the command line keeps Shiplane from starting: no `Lanes/`, no `swiftc`.
public struct EnvironmentProblem: ReportableError {
    public var message: String
    public var suggestion: String?
    public var info: [(key: String, value: String)]

    public init(_ message: String, suggestion: String? = nil, info: [(key: String, value: String)] = []) {
        self.message = message
        self.suggestion = suggestion
        self.info = info
    }
}
