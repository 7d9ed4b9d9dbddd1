import Foundation
import Testing
@testable import Shiplane

@Suite("Running commands", .offThePool)
struct ProcessRunnerTests {
    let environment = ProcessInfo.processInfo.environment

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ line: String) { lock.lock(); items.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }

    @Test func capturesBothStreamsLineByLineAndTheExitCode() async throws {
        let lines = Lines()
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "/bin/sh", arguments: ["-c", "echo one; echo two >&2; printf three; exit 3"], environment: environment)
        ) { line, _ in lines.add(line) }
        #expect(result.exitCode == 3)
        #expect(result.standardOutput == "one\nthree")
        #expect(result.standardError == "two\n")
        #expect(Set(lines.all) == ["one", "two", "three"])
        #expect(Set(result.lastLines) == ["one", "two", "three"])
    }

    /// A command sees its standard streams and nothing else this process has open: a descriptor
    /// inherited or opened without close-on-exec (a CI runner's pipe) would otherwise reach every
    /// command, and a command left running would hold it open.
    @Test func aCommandInheritsOnlyItsStandardStreams() async throws {
        let leaked = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        #expect(leaked > 2)
        defer { close(leaked) }
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "ls", arguments: ["/proc/self/fd"], environment: environment)
        ) { _, _ in }
        #expect(result.exitCode == 0, "\(result.standardError)")
        // `ls` itself opens the folder it lists as descriptor 3.
        #expect(result.standardOutput.split(whereSeparator: \.isNewline) == ["0", "1", "2", "3"], "\(result.standardOutput)")
    }

    @Test func argumentsAreNeverInterpretedByAShell() async throws {
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "echo", arguments: ["a; rm -rf /tmp/nothing", "$HOME"], environment: environment)
        ) { _, _ in }
        #expect(result.standardOutput == "a; rm -rf /tmp/nothing $HOME\n")
    }

    @Test func environmentAndWorkingDirectoryApply() async throws {
        var variables = environment
        variables["SHIPLANE_PROBE"] = "42"
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "/bin/sh", arguments: ["-c", "echo $SHIPLANE_PROBE; pwd"], workingDirectory: "/tmp", environment: variables)
        ) { _, _ in }
        #expect(result.standardOutput == "42\n/tmp\n")
    }

    @Test func aTimeoutStopsTheCommand() async throws {
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "/bin/sh", arguments: ["-c", "echo started; exec sleep 600"], environment: environment, timeout: 0.3)
        ) { _, _ in }
        #expect(result.timedOut)
        #expect(result.terminatedBySignal, "stopped by SIGTERM rather than running to its end")
        // SIGTERM, or SIGKILL 3 s later when the child ignores or blocks SIGTERM.
        #expect([SIGTERM, SIGKILL].contains(result.exitCode))
        #expect(result.standardOutput == "started\n")
    }

    /// `sh -c` without `exec` leaves `sleep` as a grandchild holding the output pipe: the whole
    /// process group is stopped, so the command returns when its timeout says, not 10 minutes later.
    @Test func aTimeoutStopsTheGrandchildrenToo() async throws {
        let started = Date()
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "/bin/sh", arguments: ["-c", "echo started; sleep 613; echo never"], environment: environment, timeout: 1)
        ) { _, _ in }
        #expect(result.timedOut)
        // Far below the 613 s the grandchild would hold the pipe: a bound that proves the group was stopped, not a timing target.
        #expect(Date().timeIntervalSince(started) < 120, "returned after \(Date().timeIntervalSince(started)) s")
        #expect(result.standardOutput == "started\n")
        let left = try runTool(["pgrep", "-f", "^sleep 613$"])
        #expect(left.status == 1 && left.output.isEmpty, "the grandchild is gone: \(left.output)")
    }

    /// A command started directly (not through a shell, which unblocks signals itself) has
    /// nothing blocked, so a timeout ends it with SIGTERM, not with the SIGKILL 3 s later.
    @Test func aCommandStartsWithNothingBlockedAndATimeoutEndsItWithTerm() async throws {
        let duration = "30.\(Int.random(in: 1000...9999))"
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "sleep", arguments: [duration], environment: environment, timeout: 1.5)
        ) { _, _ in }
        #expect(result.timedOut)
        #expect(result.terminatedBySignal && result.exitCode == SIGTERM, "\(result)")
    }

    /// What `/proc/self/status` says a command started directly by the runner (not a shell, which
    /// would unblock signals itself) has blocked: `cat` leaves its signal mask as it got it.
    @Test func theBlockedMaskOfACommandIsEmpty() async throws {
        let result = try await LiveProcessRunner().run(
            ProcessInvocation(executable: "cat", arguments: ["/proc/self/status"], environment: environment, timeout: 30)
        ) { _, _ in }
        #expect(result.exitCode == 0, "\(result)")
        let blocked = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.map(String.init)
        #expect(blocked == "SigBlk:\t0000000000000000")
    }

    @Test func aMissingCommandIsNamed() async throws {
        await #expect(throws: CommandNotFound.self) {
            try await LiveProcessRunner().run(
                ProcessInvocation(executable: "no-such-command-shiplane", arguments: [], environment: environment)
            ) { _, _ in }
        }
    }
}
