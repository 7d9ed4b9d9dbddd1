import Foundation
import Testing
@testable import Shiplane

/// `JSONBody` must write what `JSONSerialization` writes (sorted keys, slashes unescaped), byte
/// for byte: the oracle here is Foundation itself, on the bodies the store clients send and on
/// keys and strings chosen to catch a wrong order or escape.
@Suite("JSON request bodies", .offThePool)
struct JSONBodyTests {
    private func foundation(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    private func ours(_ object: Any) throws -> String {
        String(decoding: try JSONBody.encode(object), as: UTF8.self)
    }

    @Test func storeBodiesAreFoundationsText() throws {
        let reserve: [String: Any] = ["data": ["type": "appScreenshots",
                                                "attributes": ["fileName": "01 Home/Ä.png", "fileSize": Int64(5_242_880), "mimeType": "video/mp4",
                                                               "previewFrameTimeCode": "00:00:05:00"],
                                                "relationships": ["appScreenshotSet": ["data": ["type": "appScreenshotSets", "id": "sset-1"]]]]]
        let commit: [String: Any] = ["data": ["type": "appScreenshots", "id": "shot-1",
                                               "attributes": ["uploaded": true, "sourceFileChecksum": "d41d8cd98f00b204e9800998ecf8427e"]]]
        let reorder: [String: Any] = ["data": [["type": "appScreenshots", "id": "a"], ["type": "appScreenshots", "id": "b"]]]
        let frame: [String: Any] = ["data": ["type": "appPreviews", "id": "p", "attributes": ["previewFrameTimeCode": NSNull()]]]
        let play: [String: Any] = ["releases": [["versionCodes": ["120", "121"], "status": "inProgress", "userFraction": 0.25,
                                                 "releaseNotes": [["language": "en-US", "text": "Fixes\n\t\"quotes\" and \\ back/slashes"]]]],
                                   "track": "production", "inAppUpdatePriority": 3]
        let listing: [String: Any] = ["title": "日本語のタイトル", "shortDescription": "emoji 🚀 and \u{7} bell, \u{1f} unit", "fullDescription": "",
                                      "video": "https://youtu.be/x", "count": Int32(-7), "big": UInt64.max, "int": Int.min, "off": false]
        for body in [reserve, commit, reorder, frame, play, listing] {
            #expect(try ours(body) == (try foundation(body)))
        }
        // Plain values keep Foundation's text too, a floating-point number included (handed over whole).
        #expect(try ours(["userFraction": 0.1]) == (try foundation(["userFraction": 0.1])))
        #expect(try ours([String: Any]()) == "{}")
        #expect(try ours(["a": [Any]()]) == #"{"a":[]}"#)
    }

    @Test func keysAreInFoundationsOrder() throws {
        let keys = ["b", "a", "B", "A", "ab", "aB", "Ab", "AB", "abc", "a", "a2", "a10", "a02", "a002", "a1b", "a1B", "A1b", "a0", "a00",
                    "x9y", "x10y", "x9", "z", "Z1", "z1", "zz", "id", "type", "data", "attributes", "relationships", "fileName", "fileSize",
                    "uploaded", "sourceFileChecksum", "versionCodes", "inAppUpdatePriority", "changesNotSentForReview", "v1", "V1", "1", "01",
                    "10", "2", "a1", "aa", "a9z", "a09z"]
        var object: [String: Any] = [:]
        for (index, key) in keys.enumerated() { object[key] = index }
        #expect(try ours(object) == (try foundation(object)))
        // Pairwise, so a wrong tie-break shows which pair.
        for left in Set(keys) {
            for right in Set(keys) where left < right {
                let pair: [String: Any] = [left: 1, right: 2]
                #expect(try ours(pair) == (try foundation(pair)), "\(left) / \(right)")
            }
        }
    }

    @Test func otherKeysAndValuesAreFoundationsWhole() throws {
        let odd: [String: Any] = ["with space": 1, "under_score": [1, 2], "é": "x", "": true]
        #expect(try ours(odd) == (try foundation(odd)))
        let number: [String: Any] = ["n": NSNumber(value: 3), "m": 2.5]
        #expect(try ours(number) == (try foundation(number)))
        // What JSON cannot hold fails as Foundation fails.
        #expect(throws: (any Error).self) { _ = try JSONBody.encode(["nan": Double.nan]) }
    }
}
