import Foundation

/// Google's published description of the Android Publisher API (the v3 discovery document,
/// revision 20261026, committed as `Fixtures/Specs/androidpublisher-v3-20261026.json`), read as
/// it is and used to check every request the Play stand-in receives and every answer it gives.
///
/// A request is matched to a method by HTTP method and `flatPath` (uploads under `/upload/…` and
/// `/resumable/upload/…` by the method's `mediaUpload` protocols, with `uploadType` one of the
/// protocols it offers, the media type one it accepts and the size at most its `maxSize`); path
/// parameters with an `enum` must be one of its values; a query parameter must be the method's
/// or one of the API's global ones, typed as declared; a JSON body is checked against the
/// method's `request` schema strictly (unknown members refused, types, enums, `$ref`s resolved);
/// a successful answer is checked against the `response` schema the same way (an `int64` must be
/// a JSON string, as Google writes them). Each problem is a sentence naming the method.
final class PlayAPIDescription: @unchecked Sendable {
    // @unchecked: immutable after init.
    struct Method {
        var id: String
        var httpMethod: String
        var flatPath: [String]
        var uploadPaths: [(protocolName: String, segments: [String])]
        var uploadTypes: Set<String>
        var accept: [String]
        var maxSize: Int64?
        var parameters: [String: [String: Any]]
        var request: String?
        var response: String?
    }

    let methods: [Method]
    let schemas: [String: [String: Any]]
    let globalParameters: [String: [String: Any]]

    /// The description in the repository's fixtures.
    static let shared: PlayAPIDescription = {
        let path = packageRoot + "/Tests/ShiplaneTests/Fixtures/Specs/androidpublisher-v3-20261026.json"
        do {
            return try PlayAPIDescription(path: path)
        } catch {
            preconditionFailure("the Android Publisher description \(path) could not be read: \(error)")
        }
    }()

    struct Unreadable: Error { var reason: String }

    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let resources = document["resources"] as? [String: Any], let schemas = document["schemas"] as? [String: [String: Any]] else {
            throw Unreadable(reason: "no resources or schemas")
        }
        var found: [Method] = []
        func walk(_ resource: [String: Any]) {
            for case let (_, method as [String: Any]) in resource["methods"] as? [String: Any] ?? [:] {
                guard let id = method["id"] as? String, let http = method["httpMethod"] as? String,
                      let flat = method["flatPath"] as? String ?? method["path"] as? String else { continue }
                var uploads: [(String, [String])] = []
                var types: Set<String> = []
                var accept: [String] = []
                var maxSize: Int64?
                if let media = method["mediaUpload"] as? [String: Any] {
                    accept = media["accept"] as? [String] ?? []
                    maxSize = (media["maxSize"] as? String).flatMap { Int64($0) }
                    for case let (name, proto as [String: Any]) in media["protocols"] as? [String: Any] ?? [:] {
                        if let path = proto["path"] as? String { uploads.append((name, Self.segments(path))) }
                        types.insert(name == "simple" ? "media" : name)
                        if proto["multipart"] as? Bool == true { types.insert("multipart") }
                    }
                }
                found.append(Method(
                    id: id, httpMethod: http, flatPath: Self.segments(flat), uploadPaths: uploads, uploadTypes: types, accept: accept,
                    maxSize: maxSize, parameters: method["parameters"] as? [String: [String: Any]] ?? [:],
                    request: (method["request"] as? [String: Any])?["$ref"] as? String,
                    response: (method["response"] as? [String: Any])?["$ref"] as? String))
            }
            for case let (_, child as [String: Any]) in resource["resources"] as? [String: Any] ?? [:] { walk(child) }
        }
        walk(["resources": resources])
        methods = found
        self.schemas = schemas
        globalParameters = document["parameters"] as? [String: [String: Any]] ?? [:]
    }

    /// The method with this id.
    func method(_ id: String) -> Method? { methods.first { $0.id == id } }

    static func segments(_ path: String) -> [String] { path.split(separator: "/").map(String.init) }

    // MARK: - Matching

    /// The method a request is for and its path parameters; nil when the description has none.
    func match(method: String, path: String) -> (method: Method, parameters: [String: String], upload: String?)? {
        let segments = Self.segments(path)
        var best: (Method, [String: String], String?, Int)?
        for candidate in methods where candidate.httpMethod == method {
            var templates: [(String?, [String])] = [(nil, candidate.flatPath)]
            templates += candidate.uploadPaths.map { ($0.protocolName, $0.segments) }
            for (upload, template) in templates {
                guard let parameters = Self.bind(template, segments) else { continue }
                let literals = template.filter { !$0.contains("{") }.count
                if best == nil || literals > (best?.3 ?? 0) { best = (candidate, parameters, upload, literals) }
            }
        }
        return best.map { ($0.0, $0.1, $0.2) }
    }

    /// The path parameters when `segments` fit `template` ("{editId}:commit" takes a segment ending ":commit").
    static func bind(_ template: [String], _ segments: [String]) -> [String: String]? {
        guard template.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(template, segments) {
            guard let open = part.firstIndex(of: "{"), let close = part.firstIndex(of: "}") else {
                if part != segment { return nil }
                continue
            }
            let prefix = String(part[..<open]), suffix = String(part[part.index(after: close)...])
            let name = String(part[part.index(after: open)..<close])
            guard segment.hasPrefix(prefix), segment.hasSuffix(suffix), segment.count > prefix.count + suffix.count else { return nil }
            let value = String(segment.dropFirst(prefix.count).dropLast(suffix.count))
            if value.contains(":") { return nil }
            parameters[name] = value
        }
        return parameters
    }

    // MARK: - Requests

    /// What is wrong with a request by the description (empty when nothing).
    /// `body` is the JSON body for methods with a request schema; `headers` reads a header by name.
    func problems(method httpMethod: String, path: String, query: [String: String], body: [UInt8]?,
                  headers: (String) -> String?) -> (method: Method?, problems: [String]) {
        guard let (method, parameters, upload) = match(method: httpMethod, path: path) else {
            return (nil, ["\(httpMethod) \(path) is not a method of the Android Publisher API"])
        }
        var found: [String] = []
        for (name, value) in parameters {
            if let declared = method.parameters[name], let allowed = declared["enum"] as? [String], !allowed.contains(value) {
                found.append("\(method.id): path parameter \(name) \"\(value)\" is not one of \(allowed.joined(separator: ", "))")
            }
        }
        for (name, value) in query.sorted(by: { $0.key < $1.key }) {
            let declared = method.parameters[name].flatMap { $0["location"] as? String == "query" ? $0 : nil } ?? globalParameters[name]
            guard let declared else {
                found.append("\(method.id): query parameter \(name) is not declared")
                continue
            }
            if let problem = Self.queryValueProblem(value, declared) { found.append("\(method.id): query parameter \(name) \(problem)") }
        }
        for (name, declared) in method.parameters where declared["location"] as? String == "query" && declared["required"] as? Bool == true {
            if query[name] == nil { found.append("\(method.id): required query parameter \(name) is missing") }
        }
        if let upload {
            let type = query["uploadType"] ?? ""
            if !method.uploadTypes.contains(type) {
                found.append("\(method.id): uploadType \"\(type)\" is not one of \(method.uploadTypes.sorted().joined(separator: ", "))")
            }
            if upload == "resumable" && type != "resumable" { found.append("\(method.id): the resumable path takes uploadType=resumable") }
            let mediaType = type == "resumable" ? headers("x-upload-content-type") : headers("content-type")
            let length = Int64((type == "resumable" ? headers("x-upload-content-length") : headers("content-length")) ?? "")
            if type == "media" || type == "resumable" {
                if !Self.accepts(method.accept, mediaType ?? "") {
                    found.append("\(method.id): media type \(mediaType ?? "(none)") is not one it accepts (\(method.accept.joined(separator: ", ")))")
                }
                if let length, let maxSize = method.maxSize, length > maxSize {
                    found.append("\(method.id): \(length) bytes is more than its maxSize \(maxSize)")
                }
            }
        } else if !method.uploadPaths.isEmpty && method.request == nil && (body?.isEmpty == false) {
            found.append("\(method.id): media must go to the /upload path")
        }
        if let schema = method.request {
            let bytes = body ?? []
            if let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) {
                if headers("content-type")?.lowercased().hasPrefix("application/json") != true {
                    found.append("\(method.id): a JSON body needs Content-Type application/json")
                }
                found += validate(object, ["$ref": schema], at: "\(method.id) request", answer: false)
            } else if !bytes.isEmpty {
                found.append("\(method.id): the request body is not JSON")
            }
        } else if upload == nil, let body, !body.isEmpty {
            found.append("\(method.id): takes no request body")
        }
        return (method, found)
    }

    static func queryValueProblem(_ value: String, _ declared: [String: Any]) -> String? {
        if let allowed = declared["enum"] as? [String], !allowed.contains(value) {
            return "\"\(value)\" is not one of \(allowed.joined(separator: ", "))"
        }
        switch declared["type"] as? String {
        case "boolean": return ["true", "false"].contains(value) ? nil : "\"\(value)\" is not a boolean"
        case "integer": return Int64(value) == nil ? "\"\(value)\" is not an integer" : nil
        case "string" where declared["format"] as? String == "int64": return Int64(value) == nil ? "\"\(value)\" is not an int64" : nil
        default: return nil
        }
    }

    static func accepts(_ patterns: [String], _ mediaType: String) -> Bool {
        let type = mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return patterns.contains { pattern in
            pattern == "*/*" || pattern == type || (pattern.hasSuffix("/*") && type.hasPrefix(String(pattern.dropLast())))
        }
    }

    // MARK: - Answers

    /// What is wrong with a successful answer's JSON document (nil: no body) by the method's response schema.
    func problems(answer object: Any?, for method: Method) -> [String] {
        guard let schema = method.response else {
            if let object, !((object as? [String: Any])?.isEmpty ?? false) { return ["\(method.id) answers with no body, not \(object)"] }
            return []
        }
        guard let object else { return ["\(method.id) answers with a \(schema), not an empty body"] }
        return validate(object, ["$ref": schema], at: "\(method.id) answer", answer: true)
    }

    // MARK: - Schemas

    /// Checks `value` against a schema; `answer` makes int64s strings only (Google writes them so;
    /// requests may send them as numbers, which proto3's JSON mapping reads).
    func validate(_ value: Any, _ schema: [String: Any], at place: String, answer: Bool) -> [String] {
        if let name = schema["$ref"] as? String {
            guard let resolved = schemas[name] else { return ["\(place): the description has no schema \(name)"] }
            return validate(value, resolved, at: place, answer: answer)
        }
        if value is NSNull { return [] }
        let number = value as? NSNumber
        let isBool = number.map { String(cString: $0.objCType) == "c" } ?? false
        let isInteger = number.map { !isBool && !["d", "f"].contains(String(cString: $0.objCType)) } ?? false
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return ["\(place): \(Self.show(value)) is not an object"] }
            var found: [String] = []
            let properties = schema["properties"] as? [String: [String: Any]]
            let additional = schema["additionalProperties"] as? [String: Any]
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                if let property = properties?[key] {
                    found += validate(member, property, at: "\(place).\(key)", answer: answer)
                } else if let additional {
                    found += validate(member, additional, at: "\(place).\(key)", answer: answer)
                } else {
                    found.append("\(place): unknown member \"\(key)\" (\(schema["id"] as? String ?? "the object") has \((properties ?? [:]).keys.sorted().joined(separator: ", ")))")
                }
            }
            return found
        case "array":
            guard let array = value as? [Any] else { return ["\(place): \(Self.show(value)) is not an array"] }
            let items = schema["items"] as? [String: Any] ?? [:]
            return array.enumerated().flatMap { validate($0.element, items, at: "\(place)[\($0.offset)]", answer: answer) }
        case "string":
            let format = schema["format"] as? String
            if format == "int64" || format == "uint64" {
                if let text = value as? String, Int64(text) != nil || UInt64(text) != nil { return [] }
                if !answer && isInteger { return [] }
                return ["\(place): \(Self.show(value)) is not an \(format ?? "") (a string of digits)"]
            }
            guard let text = value as? String else { return ["\(place): \(Self.show(value)) is not a string"] }
            if let allowed = schema["enum"] as? [String], !allowed.contains(text) {
                return ["\(place): \"\(text)\" is not one of \(allowed.joined(separator: ", "))"]
            }
            return []
        case "integer":
            if isInteger { return [] }
            if !answer, let text = value as? String, Int64(text) != nil { return [] }
            return ["\(place): \(Self.show(value)) is not an integer"]
        case "number":
            return number != nil && !isBool ? [] : ["\(place): \(Self.show(value)) is not a number"]
        case "boolean":
            return isBool ? [] : ["\(place): \(Self.show(value)) is not a boolean"]
        default:
            return []
        }
    }

    static func show(_ value: Any) -> String {
        if let text = value as? String { return "\"\(text)\"" }
        return "\(value)"
    }
}
