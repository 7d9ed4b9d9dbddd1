import Foundation
import Testing
import AsyncHTTPClient
@testable import Shiplane
import NIOCore

/// What replaced Foundation's ICU-backed formatters, regular expressions and dates in a lane's
/// way must say exactly what they said: Foundation is the oracle, on values chosen at every edge.
@Suite("Plain formats", .offThePool)
struct PlainFormatsTests {
    @Test func byteCountsAreByteCountFormattersText() {
        var counts: [Int64] = [0, 1, 2, 500, 999, 1000, 1001, 1024, 1499, 1500, 1501, 2500, 3500, 9_499, 9_500, 9_999, 10_000, 99_499, 99_500,
                               999_499, 999_500, 999_999, 1_000_000, 1_049_999, 1_050_000, 1_050_001, 1_150_000, 1_250_000, 5_242_880,
                               9_950_000, 10_000_000, 52_428_800, 99_949_999, 99_950_000, 524_288_000, 999_949_999, 999_950_000,
                               1_000_000_000, 1_005_000_000, 1_015_000_000, 1_073_741_824, 1_500_000_000, 12_345_678_901,
                               999_995_000_000, 1_000_000_000_000, 2_500_000_000_000, 1_000_000_000_000_000, 4_611_686_018_427_387_904,
                               Int64.max, -1, -5, -1500, -5_242_880]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<300 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            counts.append(Int64(seed >> UInt64(1 + (seed & 0x3F) % 60)))
        }
        for count in counts {
            #expect(ByteCountText.file(count) == ByteCountFormatter.string(fromByteCount: count, countStyle: .file), "\(count)")
        }
    }

    @Test func languageTagsMatchTheRegularExpressionsTheyReplace() {
        let names = ["en", "en-US", "zh-Hans", "zh-Hans-CN", "ja", "pt-BR", "es-419", "de-DE-x", "e", "eng", "engl", "en-", "-US", "en--US",
                     "en-U", "en-USAB", "en-USABC", "en_US", "EN-us", "En", "fr-CA-1", "fr-CA-12", "sr-Latn-RS", "zh-Hant-TW", "no-NO-NY",
                     "iw", "en-US-", "en-US-US-US", "é", "enß", "en-US\n", "", "-", "ab-12345678", "ab-123456789", "ab-c1", "Ab-CD",
                     "abc-defgh", "abc-de-fg-hi", "a1", "ab-CDEF-GH", "ab-CDEF-G", "ab-CD-EFG"]
        for name in names {
            if name.hasSuffix("\n") {
                // The expressions' `$` let a final line break through; a folder or tag with one is refused here.
                #expect(!LanguageTag.looksLikeAppStoreLocale(name) && !LanguageTag.looksLikePlayLanguage(name))
                continue
            }
            let appStore = name.range(of: #"^[a-zA-Z]{2,3}(-[a-zA-Z]{2,4})?(-[a-zA-Z]{2})?$"#, options: .regularExpression) != nil
            let play = name.range(of: #"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"#, options: .regularExpression) != nil
            #expect(LanguageTag.looksLikeAppStoreLocale(name) == appStore, "\(name)")
            #expect(LanguageTag.looksLikePlayLanguage(name) == play, "\(name)")
        }
    }

    private struct Dated: Codable, Equatable { var at: Date; var maybe: Date? }

    @Test func recordDatesAreISO8601sText() throws {
        let foundation = JSONEncoder(), ours = JSONEncoder()
        foundation.dateEncodingStrategy = .iso8601
        ours.dateEncodingStrategy = RecordDates.encoding
        // Keys in one order: only the dates may differ.
        foundation.outputFormatting = .sortedKeys
        ours.outputFormatting = .sortedKeys
        for seconds in [0, 1, 59, 951_782_400, 1_764_150_902, 1_764_150_902.999, 4_102_444_800, 253_402_300_799] as [Double] {
            let value = Dated(at: Date(timeIntervalSince1970: seconds), maybe: Date(timeIntervalSince1970: seconds + 86_400))
            let mine = String(decoding: try ours.encode(value), as: UTF8.self), theirs = String(decoding: try foundation.encode(value), as: UTF8.self)
            #expect(mine == theirs, "\(seconds): \(mine) against \(theirs)")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = RecordDates.decoding
            let reference = JSONDecoder()
            reference.dateDecodingStrategy = .iso8601
            let text = try foundation.encode(value)
            #expect(try decoder.decode(Dated.self, from: text) == (try reference.decode(Dated.self, from: text)))
        }
        // Offsets read as `.iso8601` reads them; what it refuses is refused.
        for text in ["2026-11-26T08:15:02+01:00", "2026-11-26T08:15:02-05:30", "2024-02-29T23:59:59Z"] {
            #expect(RecordDates.parse(text) == ISO8601DateFormatter().date(from: text), "\(text)")
        }
        // Other texts are not read here: what `.iso8601` makes of them (a date or an error) stays.
        for text in ["2026-11-26 08:15:02Z", "2026-13-01T00:00:00Z", "2026-02-31T00:00:00Z", "2026-11-26T08:15Z", "yesterday", ""] {
            #expect(RecordDates.parse(text) == nil, "\(text)")
            let decoder = JSONDecoder(), reference = JSONDecoder()
            decoder.dateDecodingStrategy = RecordDates.decoding
            reference.dateDecodingStrategy = .iso8601
            let json = Data("[\"\(text)\"]".utf8)
            #expect((try? decoder.decode([Date].self, from: json)) == (try? reference.decode([Date].self, from: json)), "\(text)")
        }
    }

    @Test func jsonValuesParseAsDecodableReadsThem() throws {
        let texts = [#"{"a":1,"b":[true,false,null],"c":{"d":"e\"f\\g\/h\n\t\u00e9\ud83d\ude80"},"n":-12.5e2,"z":0}"#,
                     #"[]"#, #"{}"#, #" [ 1 , 2.25 , -0 , 1E3 ] "#, #""plain""#, #"null"#, #"9007199254740993"#,
                     "{\n  \"pretty\" : [\n    \"yes\"\n  ]\n}", #"{"dup":1,"dup":2}"#, #"["日本語", "emoji 🚀"]"#]
        for text in texts {
            #expect(try JSONValue.parse(Array(text.utf8)) == (try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))), "\(text)")
        }
        for bad in [#"{"a":}"#, #"[1,]"#, #"{"a" 1}"#, #""open"#, #"tru"#, "\"tab\there\"", #"[1] x"#, #"{"a":1,}"#, #""\ud800""#, #""\x""#, ""] {
            #expect(throws: DecodingError.self, "\(bad)") { _ = try JSONValue.parse(Array(bad.utf8)) }
        }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: DecodingError.self) { _ = try JSONValue.parse(Array(deep.utf8)) }
    }

    @Test func effectsKeepTheirFieldsThroughTheParser() throws {
        let effect = AppStoreMediaUploaded(api: "https://api.appstoreconnect.apple.com", resource: "appScreenshots", setID: "sset-1", id: nil,
                                           fileName: "01 \"Home\".png", checksum: nil, existingIDs: ["a", "b"], label: "en-US iPhone 6.9\"")
        let wrapped = try AnyEffect(effect)
        #expect(wrapped.as(AppStoreMediaUploaded.self) == effect)
        #expect(try wrapped.payload.decode(AppStoreMediaUploaded.self) == effect)
        #expect(wrapped.payload == (try RunStore.decoder.decode(JSONValue.self, from: RunStore.encoder.encode(effect))))
    }

    @Test func hostsAreReadAsWritten() {
        #expect(HTTPTransport.hostAsWritten("https://api.appstoreconnect.apple.com/v1/apps?x=1") == "api.appstoreconnect.apple.com")
        #expect(HTTPTransport.hostAsWritten("http://user:pw@127.0.0.1:8080/upload") == "127.0.0.1")
        #expect(HTTPTransport.hostAsWritten("http://[::1]:9000/x") == "::1")
        #expect(HTTPTransport.hostAsWritten("https://bücher.example/x") == "bücher.example")
        #expect(HTTPTransport.hostAsWritten("http:///path").isEmpty)
        #expect(HTTPTransport.hostAsWritten("http://:80/").isEmpty)
        #expect(HTTPTransport.hostAsWritten("no scheme").isEmpty)
    }

    @Test func uploadPoolsShareOneEventLoop() {
        let parts = TimeoutClients.shared.client(connect: 10, read: 30, pool: "upload-parts", maxConnections: 4)
        let other = TimeoutClients.shared.client(connect: 10, read: 30, pool: "other-parts", maxConnections: 2)
        #expect(Array(parts.eventLoopGroup.makeIterator()).count == 1)
        #expect(parts.eventLoopGroup === other.eventLoopGroup)
    }
}
