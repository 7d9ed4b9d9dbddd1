import Foundation

/// An Expo `app.json`: `expo.version`, `expo.ios.buildNumber` and `expo.android.versionCode`
/// (or the same keys at the top level when there is no `expo` object). The two build numbers
/// are each their platform's: they may differ, and `ios.buildNumber` may be dotted (`1.7.0.4`);
/// with `"platforms"` naming one platform, the other's number is not the app's. A React Native
/// `app.json` with only a name holds no version and is not a source. Edited as text: only the
/// values' bytes change; the file must be valid JSON.
package struct ExpoAppJSONVersionFormat: TextualVersionFormat {
    /// `app.json`, as messages name the format.
    package var name: String { "app.json" }
    var versionKey: String { "expo.version" }
    var buildKey: String? { "expo.ios.buildNumber / expo.android.versionCode" }
    var versionShape: VersionShape { .android }

    /// Creates the format; it holds no state.
    package init() {}

    func checkBuild(_ build: String) throws { try AndroidVersionCode.check(build, format: name) }

    func locate(in text: VersionText) throws -> LocatedFields {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(text.bytes))
        } catch {
            throw VersionFileError(.malformed, "The app.json file is not valid JSON", underlying: [error])
        }
        guard let object = parsed as? [String: Any] else {
            throw VersionFileError(.malformed, "The app.json file does not hold a JSON object at the top level")
        }
        let prefix: [String] = object["expo"] is [String: Any] ? ["expo"] : []
        // An app built for iOS alone (`"platforms": ["ios"]`) ships no versionCode: one left in
        // the file is not a build number of the app.
        let platforms = ((prefix.isEmpty ? object : object["expo"] as? [String: Any])?["platforms"] as? [String]).map(Set.init)
        var fields = LocatedFields()
        for value in JSONKeyPaths.values(in: text) {
            let label = "\(value.path.joined(separator: ".")) (line \(text.lineNumber(at: value.range.lowerBound)))"
            var located = LocatedValue(range: value.range, value: text.text(value.range), label: label, isQuoted: value.isString)
            guard value.path.starts(with: prefix) else { continue }
            switch Array(value.path.dropFirst(prefix.count)) {
            case ["version"] where value.isString: fields.versions.append(located)
            case ["ios", "buildNumber"] where value.isString:
                located.series = .apple
                if platforms?.contains("ios") != false { fields.builds.append(located) }
            case ["android", "versionCode"] where !value.isString:
                located.series = .android
                if platforms?.contains("android") != false { fields.builds.append(located) }
            case ["version"], ["ios", "buildNumber"], ["android", "versionCode"]:
                throw VersionFileError(
                    .invalidValue, "\(value.path.joined(separator: ".")) in app.json is of the wrong kind",
                    details: [("where", label)],
                    suggestion: "version and ios.buildNumber are strings (\"1.2.0\", \"45\"); android.versionCode is a number (45)"
                )
            default: continue
            }
        }
        fields.absenceReason = "it has no \(prefix.isEmpty ? "" : "expo.")version"
        return fields
    }
}

/// An Expo `app.config.js` / `app.config.ts`: the literal `version: "1.2.0"`,
/// `buildNumber: "45"` and `versionCode: 45` it writes. A config that computes them (or reads
/// `app.json`) holds no version of its own and is not a source.
package struct ExpoAppConfigVersionFormat: TextualVersionFormat {
    /// The file's name, as messages name the format.
    package let name: String
    var versionKey: String { "version" }
    var buildKey: String? { "buildNumber / versionCode" }
    var versionShape: VersionShape { .android }

    /// Creates the format for `app.config.js`, `app.config.ts` or another name.
    package init(name: String = "app.config.js") { self.name = name }

    func checkBuild(_ build: String) throws { try AndroidVersionCode.check(build, format: name) }

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(#"^\s*(version|buildNumber|versionCode)\s*:\s*(?:(["'])([^"'$`]*)\2|([0-9]+))\s*,?\s*(?://.*)?$"#)
        var fields = LocatedFields()
        for index in text.lines.indices {
            guard let groups = text.matches(regex, inLine: index).first, let keyRange = groups[1], let valueRange = groups[3] ?? groups[4] else { continue }
            let key = text.text(keyRange)
            var located = LocatedValue(range: valueRange, value: text.text(valueRange), label: "\(key) (line \(index + 1))", isQuoted: groups[3] != nil)
            located.series = key == "buildNumber" ? .apple : key == "versionCode" ? .android : nil
            if key == "version" { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        fields.absenceReason = "it writes no literal version (it computes it or reads app.json)"
        return fields
    }
}
