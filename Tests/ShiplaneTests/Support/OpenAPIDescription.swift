import Foundation

/// A published OpenAPI 3 description, read from a test fixture, that a stand-in checks every
/// request and answer against: the operation (method and path template), the query parameters it
/// declares (and their enum, integer and maximum constraints), the JSON request body against the
/// request schema, and the answer against the schema documented for its status.
///
/// Checks are strict, as the services are: a member a schema does not declare is refused (unless
/// the schema says `additionalProperties`), required members must be present, enum values and
/// types must match; `$ref`, `oneOf` (with its discriminator), `nullable` and `items` are followed.
final class OpenAPIDescription: @unchecked Sendable {
    // @unchecked: immutable after init; the parsed JSON is only read.

    /// Apple's App Store Connect API 4.4.1, committed as a test fixture.
    static let appStoreConnect: OpenAPIDescription? = try? OpenAPIDescription(
        file: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/app_store_connect_api-4.4.1.json")

    /// The operations of GitHub's REST API description (github/rest-api-description) that the
    /// GitHub stand-in serves, transcribed with their schemas; the fixture names its commit.
    static let gitHub: OpenAPIDescription? = try? OpenAPIDescription(
        file: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/github-rest-api-subset.json")

    /// The operations of GitLab's REST API description (doc/api/openapi/openapi_v2.yaml) that the
    /// GitLab stand-in serves, transcribed into this OpenAPI 3 form; the fixture names its commit
    /// and what was taken from GitLab's documentation instead.
    static let gitLab: OpenAPIDescription? = try? OpenAPIDescription(
        file: packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/gitlab-rest-api-subset.json")

    struct Operation {
        var method: String
        var template: String
        var object: [String: Any]
        var parameters: [[String: Any]]
    }

    private struct PathItem { var template: String; var segments: [String]; var object: [String: Any] }

    let title: String
    private let paths: [PathItem]
    private let schemas: [String: Any]
    private let parameters: [String: Any]
    private let responses: [String: Any]

    /// Every operation the description holds, as "METHOD template".
    var operationNames: [String] {
        paths.flatMap { item in
            ["get", "put", "post", "delete", "patch", "head"].filter { item.object[$0] != nil }.map { "\($0.uppercased()) \(item.template)" }
        }.sorted()
    }

    init(file: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let paths = root["paths"] as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        title = ((root["info"] as? [String: Any])?["title"] as? String) ?? file
        let components = root["components"] as? [String: Any]
        schemas = (components?["schemas"] as? [String: Any]) ?? [:]
        parameters = (components?["parameters"] as? [String: Any]) ?? [:]
        responses = (components?["responses"] as? [String: Any]) ?? [:]
        self.paths = paths.compactMap { template, item in
            (item as? [String: Any]).map { PathItem(template: template, segments: template.split(separator: "/").map(String.init), object: $0) }
        }
    }

    // MARK: - Requests

    /// The operation for `method` and `path`; of several templates that match, the one with the most literal segments.
    func operation(method: String, path: String) -> Operation? {
        let segments = path.split(separator: "/").map(String.init)
        var best: (Operation, Int)?
        for item in paths where item.segments.count == segments.count {
            guard let object = item.object[method.lowercased()] as? [String: Any] else { continue }
            var literal = 0
            var matches = true
            for (want, have) in zip(item.segments, segments) {
                if want.hasPrefix("{") { continue }
                if want == have { literal += 1 } else { matches = false; break }
            }
            guard matches, literal > (best?.1 ?? -1) else { continue }
            let declared = ((item.object["parameters"] as? [[String: Any]]) ?? []) + ((object["parameters"] as? [[String: Any]]) ?? [])
            best = (Operation(method: method.uppercased(), template: item.template, object: object, parameters: declared.map(resolveParameter)), literal)
        }
        return best?.0
    }

    /// A parameter given as `$ref` to `#/components/parameters/NAME`, resolved.
    private func resolveParameter(_ parameter: [String: Any]) -> [String: Any] {
        guard let reference = parameter["$ref"] as? String else { return parameter }
        let name = reference.replacingOccurrences(of: "#/components/parameters/", with: "")
        return parameters[name] as? [String: Any] ?? ["name": reference, "in": "missing"]
    }

    /// What is wrong with a request by the description (empty when nothing is); the operation when one matched.
    /// `path` is the raw (still percent-encoded) path, so an encoded `/` stays inside its segment.
    func check(method: String, path: String, query: [String: String], body: [UInt8]) -> (Operation?, [String]) {
        guard let operation = operation(method: method, path: path) else {
            return (nil, ["\(method) \(path) is not an operation of \(title)"])
        }
        let name = "\(operation.method) \(operation.template)"
        var problems: [String] = []
        for parameter in operation.parameters where parameter["in"] as? String == "missing" {
            problems.append("\(name): parameter \(parameter["name"] ?? "") is not in the description")
        }
        // Path parameters: an integer parameter takes only digits.
        for (want, have) in zip(operation.template.split(separator: "/"), path.split(separator: "/")) where want.hasPrefix("{") {
            let key = want.dropFirst().dropLast()
            guard let parameter = operation.parameters.first(where: { $0["in"] as? String == "path" && $0["name"] as? String == String(key) }) else {
                problems.append("\(name): path parameter \(key) is not declared")
                continue
            }
            if resolve(parameter["schema"] as? [String: Any] ?? [:])["type"] as? String == "integer", Int(have) == nil {
                problems.append("\(name): path parameter \(key)=\(have) is not an integer")
            }
        }
        let declared = operation.parameters.filter { $0["in"] as? String == "query" }
        let byName = Dictionary(declared.compactMap { p in (p["name"] as? String).map { ($0, p) } }, uniquingKeysWith: { a, _ in a })
        for (key, value) in query.sorted(by: { $0.key < $1.key }) {
            guard let parameter = byName[key] else {
                problems.append("\(name): query parameter \(key) is not declared")
                continue
            }
            let schema = resolve(parameter["schema"] as? [String: Any] ?? [:])
            let values = schema["type"] as? String == "array" ? value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : [value]
            let itemSchema = schema["type"] as? String == "array" ? resolve(schema["items"] as? [String: Any] ?? [:]) : schema
            for item in values {
                if let allowed = itemSchema["enum"] as? [String], !allowed.contains(item) {
                    problems.append("\(name): query \(key)=\(item) is not one of \(allowed.joined(separator: ", "))")
                }
                if itemSchema["type"] as? String == "integer" {
                    guard let number = Int(item) else { problems.append("\(name): query \(key)=\(item) is not an integer"); continue }
                    if let maximum = (itemSchema["maximum"] as? NSNumber)?.intValue, number > maximum {
                        problems.append("\(name): query \(key)=\(item) is above its maximum \(maximum)")
                    }
                    if let minimum = (itemSchema["minimum"] as? NSNumber)?.intValue, number < minimum {
                        problems.append("\(name): query \(key)=\(item) is below its minimum \(minimum)")
                    }
                }
            }
        }
        for parameter in declared where parameter["required"] as? Bool == true {
            if let key = parameter["name"] as? String, query[key] == nil { problems.append("\(name): required query parameter \(key) is missing") }
        }
        let requestBody = operation.object["requestBody"] as? [String: Any]
        let content = requestBody?["content"] as? [String: Any] ?? [:]
        let schema = (content["application/json"] as? [String: Any])?["schema"] as? [String: Any]
        if schema == nil, content.keys.contains(where: { $0 != "application/json" }) {
            // A raw body (an upload): its bytes are the file.
            if body.isEmpty, requestBody?["required"] as? Bool == true { problems.append("\(name): the request body is required") }
        } else if let schema {
            if body.isEmpty {
                if requestBody?["required"] as? Bool == true { problems.append("\(name): the request body is required") }
            } else if let value = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) {
                problems += validate(value, schema, at: "request body").map { "\(name): \($0)" }
            } else {
                problems.append("\(name): the request body is not JSON")
            }
        } else if !body.isEmpty {
            problems.append("\(name): the operation takes no body")
        }
        return (operation, problems)
    }

    // MARK: - Answers

    /// What is wrong with an answer: a status the operation does not document, or a body its schema refuses.
    func check(answer status: Int, body: Any?, to operation: Operation) -> [String] {
        let name = "\(operation.method) \(operation.template)"
        guard var response = (operation.object["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["\(name) answered \(status), which it does not document"]
        }
        if let reference = response["$ref"] as? String {
            let key = reference.replacingOccurrences(of: "#/components/responses/", with: "")
            guard let resolved = responses[key] as? [String: Any] else { return ["\(name): answer \(status) is \(reference), which the description does not hold"] }
            response = resolved
        }
        let schema = ((response["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
        // A 204 answer carries no content (RFC 9110, 15.3.5), whatever schema a generated description gives it.
        if status == 204, body == nil { return [] }
        switch (schema, body) {
        case (nil, nil): return []
        case (nil, .some): return ["\(name) answered \(status) with a body, which it documents without one"]
        case (.some, nil): return ["\(name) answered \(status) without the body it documents"]
        case (.some(let schema), .some(let body)): return validate(body, schema, at: "answer \(status)").map { "\(name): \($0)" }
        }
    }

    // MARK: - Schemas

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        var schema = schema
        var seen = 0
        while let reference = schema["$ref"] as? String, seen < 32 {
            let name = reference.replacingOccurrences(of: "#/components/schemas/", with: "")
            // A schema the file does not hold refuses every value (a transcribed extract leaves some out).
            var target = schemas[name] as? [String: Any] ?? ["x-missing": name]
            // A sibling `nullable` beside `$ref` applies to the reference.
            if schema["nullable"] as? Bool == true { target["nullable"] = true }
            schema = target
            seen += 1
        }
        return schema
    }

    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(describing: type(of: value)).contains("Boolean") || String(cString: number.objCType) == "c"
    }

    /// Every way `value` breaks `schema`, each with its JSON pointer.
    func validate(_ value: Any, _ raw: [String: Any], at pointer: String) -> [String] {
        let schema = resolve(raw)
        if let missing = schema["x-missing"] as? String {
            return value is NSNull && raw["nullable"] as? Bool == true ? [] : ["\(pointer) needs schema \(missing), which the description file does not hold"]
        }
        if value is NSNull {
            return schema["nullable"] as? Bool == true ? [] : ["\(pointer) is null, which is not allowed"]
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            if let discriminator = schema["discriminator"] as? [String: Any], let property = discriminator["propertyName"] as? String,
               let object = value as? [String: Any], let tag = object[property] as? String,
               let target = (discriminator["mapping"] as? [String: String])?[tag] {
                return validate(value, ["$ref": target], at: pointer)
            }
            let passing = options.filter { validate(value, $0, at: pointer).isEmpty }.count
            return passing == 1 ? [] : ["\(pointer) matches \(passing) of the oneOf choices, not exactly one"]
        }
        var problems: [String] = []
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) {
            problems.append("\(pointer) is \(value), not one of \(allowed.map { "\($0)" }.joined(separator: ", "))")
        }
        let type = schema["type"] as? String ?? (schema["properties"] != nil ? "object" : nil)
        switch type {
        case "object"?:
            guard let object = value as? [String: Any] else { return problems + ["\(pointer) is not an object"] }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in (schema["required"] as? [String] ?? []) where object[key] == nil {
                problems.append("\(pointer) misses required member \(key)")
            }
            let additional = schema["additionalProperties"]
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                if let property = properties[key] as? [String: Any] {
                    problems += validate(member, property, at: pointer + "/" + key)
                } else if let extra = additional as? [String: Any] {
                    problems += validate(member, extra, at: pointer + "/" + key)
                } else if additional as? Bool != true, schema["properties"] != nil || schema["additionalProperties"] != nil {
                    problems.append("\(pointer) has member \(key), which the schema does not declare")
                }
            }
        case "array"?:
            guard let array = value as? [Any] else { return problems + ["\(pointer) is not an array"] }
            let items = schema["items"] as? [String: Any] ?? [:]
            for (index, item) in array.enumerated() { problems += validate(item, items, at: "\(pointer)/\(index)") }
        case "string"?:
            if !(value is String) { problems.append("\(pointer) is not a string") }
        case "boolean"?:
            if !Self.isBoolean(value) { problems.append("\(pointer) is not a boolean") }
        case "integer"?:
            if Self.isBoolean(value) || (value as? NSNumber).map({ $0.doubleValue != $0.doubleValue.rounded() }) ?? true {
                problems.append("\(pointer) is not an integer")
            }
        case "number"?:
            if Self.isBoolean(value) || !(value is NSNumber) { problems.append("\(pointer) is not a number") }
        default:
            break
        }
        return problems
    }
}
