import Shiplane

/// Shiplane's documented exit codes (README, "Exit codes"): one per error category.
package enum ShiplaneExitCode: Int32, Sendable, CaseIterable {
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
    /// Another run holds the repository's lock: it is running now (pid, lane and start are shown).
    case locked = 6
    /// An earlier run in this repository is unfinished: `shiplane resume` or `shiplane rollback` first.
    case unfinished = 7
    /// The fan-in job (`--fan-in`) found parts of the release that have not recorded their
    /// artifacts on origin: nothing was published; run their jobs, then the fan-in again.
    case partsMissing = 8
    /// `shiplane verify`: no problem found, and no signature either (a release published
    /// `--unsigned`): the SHA-256 digests matched the checksum file, which proves nothing about
    /// who made the files.
    case unsigned = 9
    /// A defect in Shiplane itself (also a lane program that crashed); the message says what to report.
    case bug = 70
    /// The run stopped (failed or interrupted) past its point of no return: nothing visible was
    /// undone, and `shiplane resume` (or the same command again) finishes the release.
    case resumable = 75
    /// Interrupted (Ctrl-C, SIGTERM, SIGHUP); whatever the run changed was rolled back.
    case interrupted = 130

    /// What the code means, for `shiplane help` and the README.
    var summary: String {
        switch self {
        case .success: "success"
        case .failure: "failed; what the run changed was rolled back"
        case .usage: "usage: an unknown command, lane or option, or a value of the wrong kind"
        case .compile: "the lanes in Lanes/ do not compile"
        case .environment: "environment: no repository, no Lanes/, no swiftc, a signing key set but unusable"
        case .nothingToRelease: "nothing to release since the last release tag"
        case .locked: "another run holds the repository"
        case .unfinished: "an unfinished run is recorded: `shiplane resume` or `shiplane rollback` first"
        case .partsMissing: "the fan-in job found parts not recorded on origin (listed): nothing was published"
        case .unsigned: "verify: the release carries no signature; only its digests were checked"
        case .bug: "a defect in Shiplane (or a lane program that crashed)"
        case .resumable: "stopped past the point of no return: `shiplane resume` (or the same command) finishes it"
        case .interrupted: "interrupted (Ctrl-C, SIGTERM, SIGHUP); rolled back"
        }
    }

    /// The one place errors become exit codes: the category folded over the whole error tree.
    static func `for`(_ error: any Error) -> ShiplaneExitCode {
        let category = ErrorCategory.folded(error)
        // Parts not on origin are a failure with a code of its own: CI can tell it apart.
        if category == .failure, PartsMissing.isIn(error) { return .partsMissing }
        // An unsigned release that verify found intact is told from a tampered one.
        if category == .failure, ReleaseUnsigned.isIn(error) { return .unsigned }
        return ShiplaneExitCode(category)
    }

    init(_ category: ErrorCategory) {
        switch category {
        case .failure: self = .failure
        case .nothingToDo: self = .nothingToRelease
        case .environment: self = .environment
        case .compile: self = .compile
        case .usage: self = .usage
        case .defect: self = .bug
        case .interrupted: self = .interrupted
        case .locked: self = .locked
        case .unfinished: self = .unfinished
        case .resumable: self = .resumable
        }
    }
}
