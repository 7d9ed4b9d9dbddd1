import Foundation
import Testing
@testable import Shiplane
import ShiplaneTesting

/// The tests that come with the `Announcer` contract: every announcer in `Announcers.all` runs
/// them, so a service added as one folder and one line is held to its own limits (characters
/// and bytes, with any script), to one registration, and to sending what it says it sends.
@Suite("Announcer contract: every announcer, every script, within its limits", .offThePool)
struct AnnouncerContractTests {
    /// One target of each kind `lane.announce` takes (the generic `.webhook` is not a service).
    static let targets: [AnnouncementTarget] = [
        .slack(), .discord(username: "Shiplane"), .teams(), .mattermost(channel: "town-square", username: "shiplane"),
        .email(to: ["Team <team@example.com>"], cc: ["qa@example.com"], from: "Shiplane <shiplane@example.com>"),
        .googleChat(),
    ]

    /// Text of one script, `count` characters long.
    enum Script: String, CaseIterable, CustomTestStringConvertible {
        case ascii, cjk, emoji, escapes, combining, rightToLeft

        func text(_ count: Int) -> String {
            let unit: String
            switch self {
            case .ascii: unit = "release notes "
            case .cjk: unit = "发布说明版本"                            // 3 bytes a character
            case .emoji: unit = "🚀🎉👩‍👩‍👧"                               // 4 bytes a scalar, a family of 5 scalars
            case .escapes: unit = "\"\\\u{01}\u{1F}<>&\t\n"         // up to 6 bytes a byte in JSON
            case .combining: unit = "e\u{301}a\u{308}o\u{302}"          // two scalars a character
            case .rightToLeft: unit = "مرحبا بالإصدار "
            }
            return String(String(repeating: unit, count: count / unit.count + 1).prefix(count))
        }

        var testDescription: String { rawValue }
    }

    static func announcement(_ script: Script, length: Int) -> Announcement {
        Announcement(title: "Released 1.2.0 " + script.text(min(length, 60)), text: script.text(length), version: "1.2.0",
                     url: "https://example.com/acme/rocket/releases/v1.2.0",
                     facts: (0..<30).map { (key: "Fact \($0) " + script.text(10), value: script.text(min(length, 40))) })
    }

    /// The announcer that takes `target`, as the step `lane.announce` runs.
    static func step(for target: AnnouncementTarget, _ announcement: Announcement) -> (any Announcer.Type, any Announcer)? {
        for announcer in Announcers.all {
            if let action = announcer.action(for: target, announcement: announcement, delivery: .atMostOnce) { return (announcer, action) }
        }
        return nil
    }

    /// Each target is taken by exactly one announcer, every announcer takes one, and services,
    /// step names and their first configuration variables are unique.
    @Test func everyTargetHasOneAnnouncerAndEveryAnnouncerATarget() {
        let announcement = Announcement(title: "t")
        var taken: Set<String> = []
        for target in Self.targets {
            let takers = Announcers.all.filter { $0.action(for: target, announcement: announcement, delivery: .atMostOnce) != nil }
            #expect(takers.count == 1, "\(target): taken by \(takers.map { $0.service })")
            takers.forEach { taken.insert($0.service) }
        }
        #expect(taken == Set(Announcers.all.map { $0.service }), "announcers without a target in this test: add one")
        #expect(Set(Announcers.all.map { $0.name }).count == Announcers.all.count)
        #expect(Set(Announcers.all.compactMap { $0.configuration.first }).count == Announcers.all.count)
        for announcer in Announcers.all {
            #expect(!announcer.configuration.isEmpty, "\(announcer.service) names no variable")
            if announcer.limits.bytes != nil || announcer.limits.characters != nil {
                #expect(announcer.limits.bytes.map { $0 > 1_000 } ?? true && announcer.limits.characters.map { $0 > 100 } ?? true)
            }
            // Undo where the service allows, and the catalog says which.
            let rollback = announcer.documentation.rollback.lowercased()
            #expect(announcer.semantics.undoable ? rollback.contains("delete") : rollback.contains("stay"), "\(announcer.service): \(rollback)")
        }
    }

    /// Far over every limit, in every script: the message as sent stays within the service's
    /// characters, bytes and line bytes, and says what it cut.
    @Test(arguments: targets, Script.allCases)
    func aLongAnnouncementFitsTheServicesLimits(target: AnnouncementTarget, script: Script) throws {
        let long = Self.announcement(script, length: 60_000)
        let (announcer, step) = try #require(Self.step(for: target, long))
        let message = try step.messageAsSent()
        let limits = announcer.limits
        if let bytes = limits.bytes {
            #expect(message.body.count <= bytes, "\(announcer.service), \(script): \(message.body.count) bytes, over \(bytes)")
        }
        if let characters = limits.characters {
            let counted = message.counted.unicodeScalars.count
            #expect(counted <= characters, "\(announcer.service), \(script): \(counted) characters, over \(characters)")
            #expect(!message.cuts.isEmpty, "\(announcer.service), \(script): cut without saying so")
            let body = String(decoding: message.body, as: UTF8.self)
            #expect(body.contains("…") || body.contains("(truncated)"), "\(announcer.service), \(script): the cut is not visible")
        }
        if let lineBytes = limits.lineBytes {
            let longest = message.body.split(separator: UInt8(ascii: "\n")).map { $0.last == UInt8(ascii: "\r") ? $0.count - 1 : $0.count }.max() ?? 0
            #expect(longest <= lineBytes, "\(announcer.service), \(script): a line of \(longest) bytes, over \(lineBytes)")
        }
        #expect(String(validating: message.body, as: UTF8.self) != nil, "\(announcer.service), \(script): the body is not UTF-8")
    }

    /// A short announcement goes whole: nothing cut, its text in the message.
    @Test(arguments: targets, Script.allCases)
    func aShortAnnouncementIsNotCut(target: AnnouncementTarget, script: Script) throws {
        let short = Announcement(title: "Released 1.2.0", text: script.text(200), version: "1.2.0")
        let (announcer, step) = try #require(Self.step(for: target, short))
        let message = try step.messageAsSent()
        #expect(message.cuts.isEmpty, "\(announcer.service), \(script): \(message.cuts)")
        if let bytes = announcer.limits.bytes { #expect(message.body.count <= bytes) }
    }

    /// What `messageAsSent` measures is what the step sends: each HTTP announcer's step, run
    /// against a client that answers 200, posts exactly that body once (email is checked against
    /// a real SMTP server in EmailTests).
    @Test(arguments: targets.filter { if case .email = $0 { false } else { true } }, [Script.cjk, .escapes])
    func theStepSendsTheMessageTheContractMeasures(target: AnnouncementTarget, script: Script) async throws {
        let long = Self.announcement(script, length: 60_000)
        let (announcer, step) = try #require(Self.step(for: target, long))
        let expected = try step.messageAsSent()
        let http = RecordingHTTPClient()
        http.respond { _ in HTTPResponse(status: 200) }
        let folder = NSTemporaryDirectory() + "shiplane-announcer-contract-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let variables = Dictionary(uniqueKeysWithValues: Announcers.all.compactMap { $0.configuration.first }.map {
            ($0, "https://hooks.example.com/services/\($0.lowercased())/abcdef0123456789")
        })
        let context = LaneContext(.init(workingDirectory: folder, environment: LaneEnvironment(variables: variables), http: http,
                                        retryPolicy: RetryPolicy(baseDelay: 0.01), reporter: RecordingReporter()))
        try await context.announce(long, to: [target])
        let sent = http.requests
        #expect(sent.count == 1, "\(announcer.service): \(sent.map(\.url))")
        #expect(sent.first?.body == expected.body, "\(announcer.service), \(script): sent \(sent.first?.body.count ?? 0) bytes, the contract measured \(expected.body.count)")
        #expect(http.unscriptedRequests.isEmpty)
    }
}
