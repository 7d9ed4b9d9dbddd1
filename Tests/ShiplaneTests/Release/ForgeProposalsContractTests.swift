import Foundation
import Testing
@testable import Shiplane

/// The skeleton every forge's proposals share (`ForgeProposals.openProposal`, `closeAsLeft`), on a
/// scripted forge that sends nothing: a refusal of a second one and a lost answer are answered by
/// finding the open one; a close acts only while the proposal is open with the run's commit.
@Suite("Forge contract: the proposal skeleton shared by GitHub, GitLab and Gitea", .offThePool)
struct ForgeProposalsContractTests {
    /// A forge whose answers the test gives; a call it was not told to expect fails the test.
    final class ScriptedProposals: ForgeProposals, @unchecked Sendable {
        // @unchecked: the tests call it from one task at a time; `lock` guards the members anyway.
        let lock = NSLock()
        var answers: [Result<ProposalOpenAnswer, any Error>] = []
        var listed: [[ForgeProposal]] = []
        var byNumber: [Int: ForgeProposal] = [:]
        var closed: [Int] = []
        var calls: [String] = []

        var api: String { "https://forge.example" }
        var repository: String { "acme/homebrew-tap" }
        var noun: String { "proposal" }
        func checkAccess() async throws { Issue.record("checkAccess was not expected") }
        func openProposals(branch: String, base: String) async throws -> [ForgeProposal] {
            try lock.withLock {
                calls.append("list \(branch) \(base)")
                guard !listed.isEmpty else { throw ShiplaneError("unscripted list of \(branch)") }
                return listed.removeFirst()
            }
        }
        func proposal(number: Int) async throws -> ForgeProposal? {
            lock.withLock {
                calls.append("get \(number)")
                return byNumber[number]
            }
        }
        func requestProposal(title: String, body: String, branch: String, base: String) async throws -> ProposalOpenAnswer {
            try lock.withLock {
                calls.append("open \(branch) \(base)")
                guard !answers.isEmpty else { throw ShiplaneError("unscripted open of \(branch)") }
                return try answers.removeFirst().get()
            }
        }
        func closeProposal(number: Int) async throws {
            lock.withLock {
                calls.append("close \(number)")
                closed.append(number)
            }
        }
    }

    static func proposal(_ number: Int, open: Bool = true, merged: Bool = false, head: String = "c0ffee") -> ForgeProposal {
        ForgeProposal(number: number, isOpen: open, isMerged: merged, head: head, webURL: nil)
    }

    static let lost = HTTPTransportError.responseLost(method: "POST", url: "https://forge.example/pulls", reason: "connection reset")

    @Test func anOpenedProposalIsReturnedAsOpened() async throws {
        let forge = ScriptedProposals()
        forge.answers = [.success(.opened(Self.proposal(7)))]
        let (found, opened) = try await forge.openProposal(title: "t", body: "b", branch: "shiplane/demo-1.2.0", base: "main")
        #expect(found.number == 7 && opened)
        #expect(forge.calls == ["open shiplane/demo-1.2.0 main"])
    }

    @Test func aRefusalOfASecondOneFindsTheOpenOne() async throws {
        let forge = ScriptedProposals()
        forge.answers = [.success(.alreadyOpen(failure: ShiplaneError("409 Another open merge request already exists")))]
        forge.listed = [[Self.proposal(3)]]
        let (found, opened) = try await forge.openProposal(title: "t", body: "b", branch: "shiplane/demo-1.2.0", base: "main")
        #expect(found.number == 3 && !opened)
        #expect(forge.calls == ["open shiplane/demo-1.2.0 main", "list shiplane/demo-1.2.0 main"])
    }

    @Test func aRefusalWithNoneOpenThrowsTheForgesError() async throws {
        let forge = ScriptedProposals()
        forge.answers = [.success(.alreadyOpen(failure: ShiplaneError("422 Validation Failed")))]
        forge.listed = [[]]
        await #expect(throws: ShiplaneError.self) {
            _ = try await forge.openProposal(title: "t", body: "b", branch: "shiplane/demo-1.2.0", base: "main")
        }
    }

    @Test func aLostAnswerWhoseRequestLandedIsTheOneItOpened() async throws {
        let forge = ScriptedProposals()
        forge.answers = [.failure(Self.lost)]
        forge.listed = [[Self.proposal(5)]]
        let (found, opened) = try await forge.openProposal(title: "t", body: "b", branch: "shiplane/demo-1.2.0", base: "main")
        #expect(found.number == 5 && opened, "found after the lost answer, and this call made it")
        #expect(forge.calls == ["open shiplane/demo-1.2.0 main", "list shiplane/demo-1.2.0 main"])
    }

    @Test func aLostAnswerWhoseRequestDidNotLandIsSentOnceMore() async throws {
        let forge = ScriptedProposals()
        forge.answers = [.failure(Self.lost), .success(.opened(Self.proposal(6)))]
        forge.listed = [[]]
        let (found, opened) = try await forge.openProposal(title: "t", body: "b", branch: "shiplane/demo-1.2.0", base: "main")
        #expect(found.number == 6 && opened)
        #expect(forge.calls == ["open shiplane/demo-1.2.0 main", "list shiplane/demo-1.2.0 main", "open shiplane/demo-1.2.0 main"])
    }

    /// Close only while as left: open with the run's commit at its head; found by its branch and
    /// head when the run never heard its number.
    @Test(arguments: [
        (known: true, proposal: proposal(4), closes: true, throwsError: false),
        (known: true, proposal: proposal(4, head: "beef01"), closes: false, throwsError: true),
        (known: true, proposal: proposal(4, open: false, merged: true), closes: false, throwsError: true),
        (known: true, proposal: proposal(4, open: false), closes: false, throwsError: false),
        (known: false, proposal: proposal(4), closes: true, throwsError: false),
        (known: false, proposal: proposal(4, head: "beef01"), closes: false, throwsError: false),
    ])
    func aCloseActsOnlyWhileTheProposalIsAsTheRunLeftIt(_ example: (known: Bool, proposal: ForgeProposal, closes: Bool, throwsError: Bool)) async throws {
        let forge = ScriptedProposals()
        if example.known { forge.byNumber[4] = example.proposal } else { forge.listed = [[example.proposal]] }
        var thrown: (any Error)?
        do {
            try await forge.closeAsLeft(number: example.known ? 4 : nil, branch: "shiplane/demo-1.2.0", base: "main", commit: "c0ffee")
        } catch {
            thrown = error
        }
        #expect(forge.closed == (example.closes ? [4] : []), "\(forge.calls)")
        #expect((thrown != nil) == example.throwsError, "\(String(describing: thrown))")
    }
}
