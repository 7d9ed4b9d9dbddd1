import Foundation
import Testing

/// A lane whose webhook server is down, run with the built binary and the default retry policy.
@Suite("A server that is down fails the run in seconds, saying which", .offThePool)
struct NetworkFailureTests {
    @Test func aWebhookToAClosedPortFailsFastAndReadably() async throws {
        let repo = try repositoryWithLanes([
            "Lanes/Notify.swift": """
            import Shiplane
            struct Notify: Lane {
                func run(_ lane: LaneContext) async throws {
                    try await lane.webhook(lane.environment["HOOK_TARGET"] ?? "", template: #"{"text": "released"}"#)
                }
            }
            """,
        ])
        _ = try repo.shiplane(["lanes"])  // compile first: the time below is the run's alone
        let port = try closedLoopbackPort()
        let started = Date()
        // Not a secret by its variable's name: the webhook's URL is one all the same.
        let result = try await repo.shiplaneAsync(["notify"], environment: ["HOOK_TARGET": "http://127.0.0.1:\(port)/hooks/T0AB12CD34/secretPathToken99"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 1, "\(result.all)")
        #expect(elapsed < 15, "took \(elapsed) s (59 s before)")
        #expect(result.stderr.contains("POST http://127.0.0.1:\(port)/*** failed: connection refused by 127.0.0.1:\(port) (5 attempts)"), "\(result.all)")
        #expect(!result.all.contains("errno") && !result.all.contains("error set"), "\(result.all)")
        #expect(!result.all.contains("secretPathToken99") && !result.all.contains("T0AB12CD34"), "the path of a webhook is its secret: \(result.all)")
    }
}
