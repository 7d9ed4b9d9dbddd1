import Foundation
import Testing

/// A rolled-back release leaves the index as it found it: `git status --porcelain -z`,
/// `git diff --cached` and `git ls-files -s` read the same before and after every failure the
/// built `shiplane` rolls back (a locked branch, hooks that refuse, a run killed in its hook and
/// rolled back by `shiplane rollback`, a push origin refuses).
@Suite("The index after a rollback is the index before the run", .serialized, .offThePool)
struct IndexAfterRollbackTests {
    /// What git says of the index and the work tree, and where HEAD and the tags are.
    struct IndexState: Equatable, CustomStringConvertible {
        var status: String
        var staged: String
        var entries: String
        var head: String
        var tags: String

        init(_ repo: TemporaryRepository) throws {
            let porcelain = try runProgram("/usr/bin/git", ["status", "--porcelain", "-z"], in: repo.path, environment: repo.environment)
            status = porcelain.stdout.replacingOccurrences(of: "\0", with: "|")
            staged = try repo.git("diff", "--cached")
            entries = try repo.git("ls-files", "-s")
            head = try repo.git("rev-parse", "HEAD")
            tags = try repo.git("tag", "--list")
        }

        var description: String { "status \(status)\ncached \(staged)\nls-files \(entries)\nHEAD \(head)\ntags \(tags)" }
    }

    private func hook(_ repo: TemporaryRepository, _ name: String, _ script: String) throws {
        try repo.write(".git/hooks/\(name)", "#!/bin/sh\n" + script)
        chmod(repo.path + "/.git/hooks/\(name)", 0o755)
    }

    enum Failure: String, CaseIterable, Sendable {
        case lockedBranch = "a locked branch (refs/heads/main.lock)"
        case refusingPreCommit = "a pre-commit hook that refuses"
        case refusingCommitMessage = "a commit-msg hook that refuses"
        case killedInTheHook = "a run killed in its pre-commit hook, then shiplane rollback"
    }

    @Test(arguments: Failure.allCases)
    func aFailedCommitLeavesTheIndexAsItWas(_ failure: Failure) throws {
        let repo = try versionedRepository()
        let before = try IndexState(repo)
        switch failure {
        case .lockedBranch: try repo.write(".git/refs/heads/main.lock", "")
        case .refusingPreCommit: try hook(repo, "pre-commit", "exit 1\n")
        case .refusingCommitMessage: try hook(repo, "commit-msg", "exit 1\n")
        case .killedInTheHook: try hook(repo, "pre-commit", "kill -9 $PPID\nsleep 5\n")
        }
        let result = try repo.shiplane(["bump", "patch", "--commit"])
        if failure == .killedInTheHook {
            #expect(result.status != 0, "\(result.all)")
            try FileManager.default.removeItem(atPath: repo.path + "/.git/hooks/pre-commit")
            let rollback = try repo.shiplane(["rollback"])
            #expect(rollback.status == 0, "\(rollback.all)")
        } else {
            #expect(result.status == 1, "\(failure.rawValue): \(result.all)")
            #expect(result.all.contains("rolled back"), "\(result.all)")
        }
        #expect(repo.read("VERSION") == "1.2.3\n")
        if failure == .lockedBranch {
            #expect(repo.read(".git/refs/heads/main.lock") != nil, "the lock file the run found is not its own: it stays")
        }
        let after = try IndexState(repo)
        #expect(after == before, "\(failure.rawValue)\nbefore:\n\(before)\nafter:\n\(after)")
    }

    @Test func aPushOriginRefusesLeavesTheIndexAsItWas() async throws {
        let origin = try await RefusedPushTests.Origin()
        defer { origin.server.stop() }
        try origin.hook("pre-receive", "echo 'refused by policy' >&2\nexit 1")
        let before = try IndexState(origin.repo)
        let result = try await origin.shiplane(RefusedPushTests.release)
        #expect(result.status != 0, "\(result.all)")
        #expect(result.all.contains("rolled back"), "\(result.all)")
        let after = try IndexState(origin.repo)
        #expect(after == before, "before:\n\(before)\nafter:\n\(after)")
    }

    /// What a pre-commit hook stages goes into the commit, as git does; the message file the
    /// commit-msg hook gets ends with a newline, so a trailer appended with `echo >>` is a line of its own.
    @Test func whatAPreCommitHookStagesIsCommittedAndTheMessageFileEndsWithANewline() throws {
        let repo = try versionedRepository()
        try hook(repo, "pre-commit", "date > BUILD_STAMP\ngit add BUILD_STAMP\n")
        try hook(repo, "commit-msg", "echo 'Signed-off-by: Hook <hook@example.com>' >> \"$1\"\n")
        let result = try repo.shiplane(["bump", "patch", "--commit"])
        #expect(result.status == 0, "\(result.all)")
        let committed = try repo.git("show", "--name-only", "--format=", "HEAD").split(separator: "\n").sorted()
        #expect(committed == ["BUILD_STAMP", "VERSION", "package.json"])
        #expect(try repo.git("log", "-1", "--format=%B") == "chore(release): 1.2.4\nSigned-off-by: Hook <hook@example.com>")
        #expect(try repo.git("status", "--porcelain") == "")
    }
}

/// The copy of the record a push carries (`refs/shiplane/run`) does not outlive a run whose push
/// was refused and rolled back.
@Suite("No local run record ref left after a refused push", .serialized, .offThePool)
struct LeftRunReferenceTests {
    @Test func aPrePushHookThatRefusesLeavesNoRunReference() throws {
        let repo = try versionedRepository()
        let origin = try TemporaryRepository(bare: true)
        try repo.git("remote", "add", "origin", origin.path)
        try repo.git("push", "-q", "origin", "main", "v1.2.3")
        try repo.write(".git/hooks/pre-push", "#!/bin/sh\nexit 1\n")
        chmod(repo.path + "/.git/hooks/pre-push", 0o755)
        let result = try repo.shiplane(["bump", "patch", "--commit", "--tag", "--push"])
        #expect(result.status == 1, "\(result.all)")
        #expect(try repo.git("for-each-ref", "refs/shiplane") == "")
        #expect(try origin.git("for-each-ref", "refs/shiplane") == "")
    }

    @Test func aPushOriginRefusesWholeLeavesNoRunReference() async throws {
        let origin = try await RefusedPushTests.Origin()
        defer { origin.server.stop() }
        try origin.hook("pre-receive", "exit 1")
        let result = try await origin.shiplane(RefusedPushTests.release)
        #expect(result.status == 1, "\(result.all)")
        #expect(try origin.repo.git("for-each-ref", "refs/shiplane") == "")
    }
}
