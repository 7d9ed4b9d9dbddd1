import Foundation

/// An Android Gradle build script, Groovy (`build.gradle`) or Kotlin (`build.gradle.kts`):
/// `versionName` and `versionCode` in `defaultConfig` and in every product flavour.
///
/// Understands `versionName "1.2"`, `versionName = "1.2"`, `versionName("1.2")`,
/// `versionCode 45`, `versionCode = 45`, `ext.versionName = '1.2'` and the variables named
/// (`def appVersionName = "1.2"`, `val appVersionCode = 45`). A value that is an expression
/// (`versionName = libs.versions.app.get()`, `versionCode VERSION_CODE.toInteger()`,
/// `flutter.versionName`) refers to where the value lives: a version catalog, `gradle.properties`,
/// Flutter's `pubspec.yaml`; it is followed there and never rewritten here. A template of numbered
/// parts (`"${versionMajor}.${versionMinor}.${versionPatch}"`) is read and bumped part by part,
/// and a `versionCode` summed from those parts follows them (`GradleVersionParts`); any other
/// computed value is an error naming its line. `versionNameSuffix` is not a version. Only the
/// values' bytes change.
package struct GradleVersionFormat: TextualVersionFormat {
    /// `build.gradle` or `build.gradle.kts`, as messages name the format.
    package var name: String { kotlin ? "build.gradle.kts" : "build.gradle" }
    var versionKey: String { "versionName" }
    var buildKey: String? { "versionCode" }
    /// Google Play's (`versionCode`).
    package var buildSeries: Set<BuildSeries> { [.android] }
    var versionShape: VersionShape { .android }

    /// True for the Kotlin DSL.
    package let kotlin: Bool
    /// Variables defined in the script that hold the version (referred to by `versionName`).
    package let versionVariables: [String]
    /// Variables defined in the script that hold the build number.
    package let buildVariables: [String]

    /// Creates the format for a Groovy or Kotlin script; the variables are those a
    /// `versionName` or `versionCode` refers to.
    package init(kotlin: Bool = false, versionVariables: [String] = [], buildVariables: [String] = []) {
        self.kotlin = kotlin
        self.versionVariables = versionVariables
        self.buildVariables = buildVariables
    }

    func checkBuild(_ build: String) throws { try AndroidVersionCode.check(build, format: name) }

    func locate(in text: VersionText) throws -> LocatedFields {
        let names = (["versionName", "versionCode"] + versionVariables + buildVariables).map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")
        let line = try NSRegularExpression.builtIn(
            #"^\s*(?:(?:def|val|var)\s+|(?:project\.)?ext\.|extra\[")?("# + names + #")"?\]?\b\s*(?:(=)\s*|(\()\s*|(?=[\s"'0-9]))\s*(.*)$"#
        )
        var fields = LocatedFields()
        var blocks = GradleBlocks()
        let numbers = try GradleVersionParts(text)
        for index in text.lines.indices {
            let lineText = text.text(text.lines[index])
            defer { blocks.advance(over: lineText) }
            guard let groups = text.matches(line, inLine: index).first, let keyRange = groups[1], let restRange = groups[4] else { continue }
            let key = text.text(keyRange)
            let isVersion = key == "versionName" || versionVariables.contains(key)
            let place = blocks.path.isEmpty ? "" : blocks.path.joined(separator: " ") + " "
            guard var located = Self.value(in: text, restRange, openParenthesis: groups[3] != nil) else { continue }
            let label = "\(place)\(key) (line \(index + 1))"
            if let expression = located.explicitReference {
                if located.isQuoted {
                    // A template: the version's parts, set as numbers in this script, or an error.
                    guard isVersion else { throw GradleComputedValue.error(key: key, expression: "\"\(expression)\"", line: index + 1, script: name) }
                    fields.versions.append(try numbers.version(template: expression, range: located.range, label: label, line: index + 1, script: name))
                    continue
                }
                if !isVersion, let code = numbers.code(expression, range: located.range, label: label) {
                    fields.builds.append(code)
                    continue
                }
                if GradleComputedValue.computes(expression) {
                    throw GradleComputedValue.error(key: isVersion ? "versionName" : "versionCode", expression: expression, line: index + 1, script: name)
                }
            }
            located = LocatedValue(
                range: located.range, value: located.value, label: label,
                isQuoted: located.isQuoted, key: key,
                explicitReference: located.explicitReference.map { Self.reference(in: $0, isVersion: isVersion) }
            )
            if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        fields.absenceReason = "it sets no versionName (an Android library or a project-level script)"
        return fields
    }

    /// The value at the start of `range`: a quoted string's contents, digits, or an expression
    /// (returned with `explicitReference` set to the expression's text).
    static func value(in text: VersionText, _ range: Range<Int>, openParenthesis: Bool) -> LocatedValue? {
        let bytes = text.bytes
        var start = range.lowerBound
        guard start < range.upperBound else { return nil }
        let first = bytes[start]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            start += 1
            var end = start
            while end < range.upperBound, bytes[end] != first { end += 1 }
            guard end < range.upperBound else { return nil }
            let value = text.text(start..<end)
            // A Groovy or Kotlin template ("${major}.${minor}") is computed, not written: the
            // caller reads it as its parts (`GradleVersionParts`) or refuses it.
            let reference = value.contains("$") ? value : nil
            return LocatedValue(range: start..<end, value: value, label: "", isQuoted: true, explicitReference: reference)
        }
        var end = start
        while end < range.upperBound, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
        let afterDigits = text.text(end..<range.upperBound).trimmingCharacters(in: .whitespaces)
        if end > start, afterDigits.isEmpty || afterDigits.hasPrefix("//") || afterDigits.hasPrefix(")") || afterDigits.hasPrefix(";") {
            return LocatedValue(range: start..<end, value: text.text(start..<end), label: "")
        }
        var expression = text.text(range)
        if let comment = expression.range(of: "//") { expression = String(expression[..<comment.lowerBound]) }
        expression = expression.trimmingCharacters(in: .whitespaces)
        if openParenthesis, expression.hasSuffix(")") { expression.removeLast() }
        guard !expression.isEmpty, expression != "{" else { return nil }
        return LocatedValue(range: range.lowerBound..<range.lowerBound, value: expression, label: "", explicitReference: expression)
    }

    /// The variable an expression reads: `VERSION_NAME`, a catalog key, Flutter's build name.
    static func reference(in expression: String, isVersion: Bool) -> String {
        if expression.lowercased().contains("flutter") {
            return isVersion ? FlutterPubspecVersionFormat.nameVariable : FlutterPubspecVersionFormat.numberVariable
        }
        if let range = expression.range(of: "libs.versions.") {
            let path = expression[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }
            let trimmed = path.hasSuffix(".get") ? path.dropLast(4) : path
            return GradleVersionCatalogFormat.catalogPrefix + trimmed
        }
        if let quote = expression.firstIndex(where: { $0 == "\"" || $0 == "'" }) {
            let rest = expression[expression.index(after: quote)...]
            let name = rest.prefix { $0 != "\"" && $0 != "'" }
            if !name.isEmpty, !name.contains("$") { return String(name) }
        }
        let noise: Set<String> = ["project", "rootProject", "ext", "extra", "get", "toInteger", "toInt", "as", "String", "Integer", "Int",
                                  "parseInt", "valueOf", "properties", "it", "findProperty", "property", "providers", "gradleProperty", "orNull"]
        let identifiers = expression.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
            .filter { !noise.contains($0) && !($0.first?.isNumber ?? true) }
        return identifiers.last ?? expression
    }
}

/// Which block each line of a Gradle script is in (`android`, `defaultConfig`, `productFlavors`,
/// `free`), counted by braces outside strings and comments, for naming values in messages.
struct GradleBlocks {
    private(set) var path: [String] = []

    mutating func advance(over line: String) {
        var quote: Character?
        var previous: Character?
        var pending = ""
        for character in line {
            if let open = quote {
                if character == open, previous != "\\" { quote = nil }
                pending.append(character)
            } else if character == "/", previous == "/" {
                break
            } else if character == "\"" || character == "'" {
                quote = character
                pending.append(character)
            } else if character == "{" {
                path.append(Self.blockName(pending))
                pending = ""
            } else if character == "}" {
                _ = path.popLast()
                pending = ""
            } else {
                pending.append(character)
            }
            previous = character
        }
    }

    /// `free` for `free {`, `create("free") {`, `getByName("release") {`, `defaultConfig {`.
    private static func blockName(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.firstIndex(of: "("), trimmed.contains("\"") || trimmed.contains("'") {
            let inner = trimmed[trimmed.index(after: open)...].filter { $0 != "\"" && $0 != "'" && $0 != ")" }
            return inner.trimmingCharacters(in: .whitespaces)
        }
        return trimmed.split(whereSeparator: { $0 == " " || $0 == "." || $0 == "(" || $0 == ")" }).last.map(String.init) ?? trimmed
    }
}
