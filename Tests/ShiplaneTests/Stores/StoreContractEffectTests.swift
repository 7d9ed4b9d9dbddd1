import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The journal's rule for the listing and the submission of every store in `Stores.all`: each
/// write reaches the store only once its effect is written down, each effect has one undo that
/// puts the store back, and an undo that finds the store changed by someone else since leaves it
/// as it is (and says so where it had the changed value in reach).
extension StoreContractTests {
    /// A store's stand-in holding what a listing update or a submission changes, its metadata
    /// folder differing from it.
    struct EffectStandIn: Sendable {
        var environment: [String: String]
        /// What the operation changes, as the store's users see it.
        var state: @Sendable () -> String
        /// What of the run is left on the store besides (Play: edits still open); empty when nothing.
        var runLeft: @Sendable () -> String
        /// Someone else changes what the run changed (in App Store Connect, in Play Console).
        var changeOutside: @Sendable () -> Void
        /// Installs a hook called with each write request ("METHOD path") as it arrives, before it is handled.
        var watchWrites: @Sendable (_ hook: @escaping @Sendable (String) -> Void) -> Void
        /// A write that changes nothing users see and is no effect of its own: Play's private
        /// edit opened in preflight, deleted, committed (the commit keeps the effects before it).
        var isBookkeeping: @Sendable (String) -> Bool
        /// True when the undo finds the changed value itself (App Store Connect's live fields), so
        /// leaving it is reported; Play's writes sit in the run's private edit, which the undo deletes.
        var reportsOutsideChange: Bool
        var stop: @Sendable () -> Void
    }

    /// Every registered store's stand-in for `operation` ("listing" or "submit"), by kind.
    static let effectStandIns: [String: @Sendable (_ folder: String, _ operation: String) async throws -> EffectStandIn] = [
        AppStoreConnectStore.kind: { _, operation in
            let apple = try FakeAppStoreConnect()
            try await apple.start()
            let version = apple.addStoreVersion("1.4.0")
            let localization = apple.addLocalization("appStoreVersionLocalizations", parentID: version, locale: "en-US", ["description": "Slow rockets"])
            _ = apple.addLocalization("appInfoLocalizations", parentID: "info-1", locale: "en-US", ["name": "Rocket"])
            apple.lock.withLock { apple.review.releaseType[version] = "AFTER_APPROVAL" }
            let listing = operation == "listing"
            return EffectStandIn(
                environment: StoreFixtures.appleEnvironment(apiURL: apple.baseURL),
                state: {
                    listing ? apple.localizations("appStoreVersionLocalizations")["en-US"]?["description"] ?? "(none)"
                        : apple.reviewState.releaseType[version] ?? "(none)"
                },
                runLeft: { "" },
                changeOutside: {
                    apple.lock.withLock {
                        if listing {
                            apple.listing["appStoreVersionLocalizations"]?[localization]?.attributes["description"] = "Rockets, edited in App Store Connect"
                        } else {
                            apple.review.releaseType[version] = "SCHEDULED"
                            apple.review.earliestReleaseDate[version] = "2027-01-04T08:00:00Z"
                        }
                    }
                },
                watchWrites: { hook in apple.lock.withLock { apple.writeHook = hook } },
                isBookkeeping: { _ in false },
                reportsOutsideChange: true,
                stop: { apple.stop() })
        },
        GooglePlayStore.kind: { _, operation in
            let play = try FakeGooglePlay()
            try await play.start()
            play.lock.withLock {
                play.committedListings["en-US"] = ["title": "Old rocket"]
                let releases: [[String: Any]] = [
                    ["status": "completed", "versionCodes": ["41"]], ["status": "inProgress", "versionCodes": ["42"], "userFraction": 0.1],
                ]
                play.committedTracks["production"] = ["track": "production", "releases": releases]
            }
            // Interrupted at the end: the commit never goes through, the run's edit stays open.
            play.fail(1, method: "POST", path: ":commit", status: 400, body: #"{"error": {"code": 400, "message": "interrupted", "status": "INVALID_ARGUMENT"}}"#)
            let listing = operation == "listing"
            return EffectStandIn(
                environment: ["GOOGLE_PLAY_SERVICE_ACCOUNT_JSON": StoreFixtures.serviceAccountJSON(tokenURL: play.tokenURL),
                              "GOOGLE_PLAY_API_URL": play.baseURL],
                state: {
                    play.lock.withLock {
                        guard !listing else { return play.committedListings["en-US"]?["title"] ?? "(none)" }
                        let releases = play.committedTracks["production"]?["releases"] as? [[String: Any]] ?? []
                        return releases.map { "\($0["status"] ?? "") \($0["userFraction"].map { "\($0)" } ?? "")" }.joined(separator: ", ")
                    }
                },
                runLeft: { play.openEdits.keys.sorted().joined(separator: ", ") },
                changeOutside: {
                    play.lock.withLock {
                        if listing {
                            play.committedListings["en-US"]?["title"] = "Rocket (Play Console)"
                        } else {
                            let releases: [[String: Any]] = [
                                ["status": "completed", "versionCodes": ["41"]], ["status": "halted", "versionCodes": ["42"], "userFraction": 0.1],
                            ]
                            play.committedTracks["production"] = ["track": "production", "releases": releases]
                        }
                    }
                },
                watchWrites: { hook in play.lock.withLock { play.writeHook = hook } },
                isBookkeeping: { request in
                    request.hasPrefix("POST ") && (request.hasSuffix("/edits") || request.hasSuffix(":commit"))
                        || (request.hasPrefix("DELETE ") && request.split(separator: "/").dropLast().last == "edits")
                },
                reportsOutsideChange: false,
                stop: { play.stop() })
        },
    ]

    /// The listing update and the submission of every store, against its stand-in: each write
    /// arrives only once the journal holds an effect for it; the journal's undo (as a rollback
    /// runs it, in the run or from the record after a kill) puts the store back as it was and
    /// leaves nothing of the run; after someone else changed what the run changed, the undo
    /// leaves their change as it is, and says so where it had it in reach.
    @Test(arguments: kinds, ["listing", "submit"])
    func theListingAndSubmitRecordEachWriteBeforeItAndUndoOnlyWhatIsStillTheRuns(kind: String, operation: String) async throws {
        let store = try Self.store(kind)
        let fixture = try #require(Self.fixtures[kind])
        let makeStandIn = try #require(Self.effectStandIns[kind], "\(store.displayName) has no effect stand-in in StoreContractEffectTests: add one")
        let call = operation == "listing" ? fixture.updateListing : fixture.submit
        for outside in [false, true] {
            try await withTemporaryDirectory { folder in
                try fixture.writeMetadata(folder.path)
                let standIn = try await makeStandIn(folder.path, operation)
                defer { standIn.stop() }
                var environment = LaneEnvironment(variables: ["SHIPLANE_HTTP_ATTEMPTS": "2", "SHIPLANE_HTTP_RETRY_DELAY": "0.01"])
                for (name, value) in standIn.environment { environment.set(name, value) }
                let lane = LaneContext(.init(workingDirectory: folder.path, environment: environment, reporter: RecordingReporter()))
                let journal = lane.state.journal
                // Each write, with the number of effects the journal held when it arrived.
                let writes = LockedValue<[(request: String, recorded: Int)]>([])
                standIn.watchWrites { request in
                    let recorded = journal.count
                    writes.withLock { $0.append((request, recorded)) }
                }
                let before = standIn.state()
                do { try await call(lane, false) } catch {
                    // An interrupt at the end (a commit that never went through) is the stand-in's; a preflight failure is not.
                    let refused = Self.preflightError(error) != nil
                    #expect(!refused, "\(store.displayName) \(operation): \(allText(error))")
                }
                let changes = writes.withLock { $0 }.filter { !standIn.isBookkeeping($0.request) }
                #expect(!changes.isEmpty, "\(store.displayName) \(operation) wrote nothing: the stand-in's state must differ from the folder")
                for (ordinal, write) in changes.enumerated() {
                    #expect(write.recorded > ordinal, "\(store.displayName) \(operation): \(write.request) went out with \(write.recorded) effect(s) written down, write \(ordinal + 1)")
                }
                #expect(journal.count >= changes.count, "\(store.displayName) \(operation): \(journal.descriptions)")
                var changed = before
                if outside {
                    standIn.changeOutside()
                    changed = standIn.state()
                    #expect(changed != before)
                }
                let rollback = await journal.rollback()
                #expect(!rollback.isEmpty)
                #expect(standIn.runLeft().isEmpty, "\(store.displayName) \(operation): the run left \(standIn.runLeft())")
                let after = standIn.state()
                if outside {
                    #expect(after == changed, "\(store.displayName) \(operation): the undo overwrote someone else's change with \(after)")
                    let saidLeft = rollback.contains { !$0.undone && ($0.error ?? "").contains("left as it is") }
                    if standIn.reportsOutsideChange {
                        #expect(saidLeft, "\(store.displayName) \(operation): the undo did not say it left the change: \(rollback)")
                    }
                } else {
                    let allUndone = rollback.allSatisfy { $0.undone }
                    #expect(after == before, "\(store.displayName) \(operation): \(after), was \(before)")
                    #expect(allUndone, "\(store.displayName) \(operation): \(rollback)")
                }
            }
        }
    }
}
