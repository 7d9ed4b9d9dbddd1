import Foundation

/// What a retried notification step does with a message its earlier attempt may have sent: the
/// earlier process was killed during the send, or the service's answer was lost on the way.
///
/// A service that can be asked whether the message arrived (Slack with a bot token) is asked, and
/// the message is sent again only when it is not there. Where nobody can tell (a webhook, an
/// incoming-webhook Slack, Teams, Mattermost, email), the choice is the lane's.
public enum Delivery: String, Sendable, Codable, CaseIterable {
    /// The default: a message that may have been sent is not sent again; the step says so with a
    /// warning that names the message and how to send it anyway. Never two messages; possibly none.
    case atMostOnce
    /// A message that may have been sent is sent again. Never none; possibly two.
    case atLeastOnce
}

/// What became of a message a step was asked to send.
package enum DeliveryOutcome: Sendable, Equatable {
    /// Sent by this step.
    case sent
    /// The earlier attempt sent it: this step's service showed it (`found`) or the record said so.
    case alreadySent
    /// The earlier attempt may have sent it and nobody can tell: not sent again (at most once).
    case skipped
}

extension StepContext {
    /// Sends a message once across the retries of this step: writes `effect` down before the send
    /// and marks it done with what the send returns (a message id).
    ///
    /// When an earlier process of this run left the same step's message recorded, the record
    /// decides: done — it went out, nothing is sent; may have been sent — `find` (a service that
    /// can be asked) looks for it, and without `find` the `delivery` rule decides. A send whose
    /// answer is lost in this process is looked for at once when `find` is given.
    /// - Parameters:
    ///   - effect: the message as the record keeps it, before it goes.
    ///   - description: what its undo does, as rollback reports it.
    ///   - destination: where it goes, for the warning (secrets redacted).
    ///   - delivery: what to do when nobody can tell whether the earlier attempt's message arrived.
    ///   - find: looks for the message on the service (by a marker it carries); nil: the service cannot tell.
    ///   - nothingHappened: true for an error after which the message surely was not sent (a refusal).
    ///   - send: sends it; returns the effect with what became known.
    /// - Throws: what `send` or `find` throw; the record says whether the message may have gone.
    func deliverOnce<E: Effect>(
        _ effect: E, _ description: String, destination: String, delivery: Delivery,
        find: ((E) async throws -> E?)? = nil, nothingHappened: (any Error) -> Bool,
        send: () async throws -> E
    ) async throws -> DeliveryOutcome {
        let journal = lane.state.journal
        if let earlier = journal.earlierAttempt(step: number, kind: E.kind) {
            if earlier.status == .done {
                log("the message to \(destination) was sent by the earlier attempt of this step: not sent again")
                note("sent earlier")
                return .alreadySent
            }
            let recorded = (earlier.effect.value as? E) ?? effect
            if earlier.status == .intended && earlier.note != RecordedEffect.sendUnderWay {
                // Written down, but the attempt stopped before its send began: nothing went out.
                journal.settle(earlier.handle, undone: true, note: "never sent: the earlier attempt stopped before its send began")
                log("the earlier attempt of this step stopped before its message to \(destination) went out: sending it now")
            } else if let find {
                if let found = try await find(recorded) {
                    journal.done(earlier.handle, effect: try? AnyEffect(found))
                    log("the message to \(destination) that the earlier attempt sent (its answer was lost) is there: not sent again")
                    note("found, sent earlier")
                    return .alreadySent
                }
                journal.settle(earlier.handle, undone: true, note: "not on \(destination): the earlier attempt's message never arrived")
            } else if delivery == .atMostOnce {
                journal.settle(earlier.handle, undone: false, note: "may have been sent by an earlier attempt (its answer was lost); not sent again")
                log("the message to \(destination) (\(description)) may have been sent by the earlier attempt of this step, whose answer was lost: "
                    + "not sent again, so it goes out at most once. Check \(destination); to send it anyway, pass `delivery: .atLeastOnce` "
                    + "to this action and run again", level: .warning)
                note("not sent again: may have been sent")
                return .skipped
            } else {
                journal.settle(earlier.handle, undone: false, note: "may have been sent by an earlier attempt; sent again (delivery: .atLeastOnce)")
                log("the message to \(destination) may have been sent by the earlier attempt of this step: sending it again (delivery: .atLeastOnce)",
                    level: .warning)
            }
        }
        if let find, (journal.recorder?.current.resumes ?? 0) > 0, let found = try await find(effect) {
            // A resumed run whose record does not show this message (a fresh clone resumes from
            // origin's record, written at the push) asks the service: the same run and step
            // carry the same marker, so a message the first runner posted is found, not repeated.
            done(try record(effect, description), found)
            log("the message to \(destination) was posted by an earlier attempt of this run (found by its marker): not sent again")
            note("found, sent earlier")
            return .alreadySent
        }
        let handle = try record(effect, description)
        // A fresh clone finishes a release from the record on the remote: it must know of this
        // message before it goes, or a kill during the send would have the clone send it again.
        lane.effectUnderWay("the message to \(destination) about to go")
        if let handle { lane.state.journal.markSendUnderWay(handle.index) }
        do {
            let sent = try await send()
            done(handle, sent)
            return .sent
        } catch {
            if nothingHappened(error) {
                didNotHappen(handle, describe(error))
            } else if let find, case .responseLost? = error as? HTTPTransportError, let found = try? await find(effect) {
                // The answer was lost but the service shows the message: it was sent, once.
                done(handle, found)
                log("the answer from \(destination) was lost, but the message is there: sent once")
                return .sent
            }
            throw error
        }
    }
}
