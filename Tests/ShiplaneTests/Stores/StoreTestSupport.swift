import Foundation
@testable import Shiplane

struct StoreLaneFailure: Error {}

/// Uploads to TestFlight, then fails when asked (to exercise rollback after the upload).
struct ShipToTestFlight: Lane {
    @Option var ipa = ""
    @Option var groups: [String] = []
    @Option var whatsNew: String?
    @Flag var failAfter = false
    @Flag var betaReview = false

    func run(_ lane: LaneContext) async throws {
        let build = try await lane.uploadToTestFlight(ipa: ipa, whatsNew: whatsNew, groups: groups, submitForBetaReview: betaReview,
                                                      usesNonExemptEncryption: false, processingTimeout: 5, pollInterval: 0.001)
        lane.log("returned \(build)")
        if failAfter { throw StoreLaneFailure() }
    }
}

/// Uploads to Google Play, then fails when asked.
struct ShipToPlay: Lane {
    @Option var bundle = ""
    @Option var packageName: String?
    @Option var track = "internal"
    @Option var fraction: Double?
    @Flag var failAfter = false
    @Flag var notForReview = false
    @Flag var cancelReview = false

    func run(_ lane: LaneContext) async throws {
        let code = try await lane.uploadToPlayStore(bundle: bundle, packageName: packageName, track: track,
                                                    releaseNotes: ["en-US": "Faster rockets", "de-DE": "Schnellere Raketen"],
                                                    status: fraction == nil ? .completed : .inProgress, rolloutFraction: fraction,
                                                    changesNotSentForReview: notForReview, cancelChangesInReview: cancelReview)
        lane.log("version code \(code)")
        if failAfter { throw StoreLaneFailure() }
    }
}

/// Runs a lane in `folder` with `variables` (retries fast) and returns the result and every message logged.
func runStoreLane<L: Lane>(
    _ lane: L, folder: String, variables: [String: String], dryRun: Bool = false, rollback: Bool = true
) async -> (result: LaneRunResult, messages: [String]) {
    let reporter = RecordingReporter()
    var environment = LaneEnvironment(variables: ["SHIPLANE_HTTP_ATTEMPTS": "4", "SHIPLANE_HTTP_RETRY_DELAY": "0.01"])
    for (name, value) in variables { environment.set(name, value) }
    let context = LaneContext(.init(workingDirectory: folder, environment: environment, reporter: reporter, isDryRun: dryRun))
    let result = await LaneRunner(rollbackOnFailure: rollback).run(lane, in: context)
    let messages = reporter.events.compactMap { event -> String? in
        if case .message(let text, _, _) = event { return text }
        return nil
    }
    return (result, messages)
}

/// Every text an error tree shows: messages, facts and suggestions.
func allText(_ error: (any Error)?) -> String {
    guard let error else { return "" }
    guard let reportable = error as? any ReportableError else { return String(describing: error) }
    return reportable.allErrors.map { item -> String in
        guard let node = item as? any ReportableError else { return String(describing: item) }
        return ([node.message] + node.info.map { "\($0.key): \($0.value)" } + [node.suggestion ?? ""]).joined(separator: "\n")
    }.joined(separator: "\n")
}

/// A lane with options set, as the command line would.
func lane<L: Lane>(_ type: L.Type, _ arguments: [String]) throws -> L {
    try L.parse(arguments)
}
