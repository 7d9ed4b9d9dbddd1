import Foundation
import Hummingbird

/// The JSON:API routes of the fake App Store Connect (called under `lock`).
extension FakeAppStoreConnect {
    func route(_ method: String, _ path: String, _ query: [String: String], _ body: [UInt8]) -> Response {
        let segments = path.split(separator: "/").map(String.init)
        /// The path's wildcards when `method` and `pattern` ("v1/builds/*") match the request.
        func m(_ wanted: String, _ pattern: String) -> [String]? {
            let expected = pattern.split(separator: "/").map(String.init)
            guard wanted == method, expected.count == segments.count else { return nil }
            var captures: [String] = []
            for (want, have) in zip(expected, segments) {
                if want == "*" { captures.append(have) } else if want != have { return nil }
            }
            return captures
        }
        if let answer = reviewRoute(method, segments, query, body) { return answer }
        if let answer = signingRoute(method, segments, query, body) { return answer }
        if let answer = listingRoute(method, segments, query, body) { return answer }
        if let answer = mediaRoute(method, segments, query, body) { return answer }
        if m("GET", "v1/apps") != nil {
            let matching = apps.filter { query["filter[bundleId]"] == nil || $0.value.bundleID == query["filter[bundleId]"] }
            return reply(200, ["data": matching.sorted { $0.key < $1.key }.map { ["type": "apps", "id": $0.key, "attributes": ["bundleId": $0.value.bundleID, "name": $0.value.name]] }])
        } else if m("GET", "v1/builds") != nil {
            // The published description: limit is an integer, at most 200.
            if let limit = query["limit"], Int(limit).map({ !(1...200).contains($0) }) ?? true {
                return error(400, "PARAMETER_ERROR.INVALID", "A parameter has an invalid value", "'\(limit)' is not a valid value for limit")
            }
            // Filters take comma-separated lists (style: form, explode: false).
            func allows(_ name: String, _ value: String) -> Bool { query[name].map { $0.split(separator: ",").map(String.init).contains(value) } ?? true }
            let matching = builds.filter { allows("filter[app]", $0.value.appID) && allows("filter[version]", $0.value.version)
                && allows("filter[preReleaseVersion.version]", $0.value.shortVersion) && allows("filter[preReleaseVersion.platform]", $0.value.platform) }
            return reply(200, ["data": matching.sorted { $0.key < $1.key }.map { buildJSON($0.key, $0.value) }])
        } else if let c = m("GET", "v1/builds/*") {
            let id = c[0];
            guard var build = builds[id] else { return notFound("builds", id) }
            if build.processingState == "PROCESSING" {
                build.polls += 1
                if build.polls > buildProcessingPolls { build.processingState = "VALID" }
                builds[id] = build
            }
            return reply(200, ["data": buildJSON(id, build)])
        } else if let c = m("PATCH", "v1/builds/*") {
            let id = c[0];
            guard builds[id] != nil else { return notFound("builds", id) }
            switch jsonAPI(body, type: "builds", id: id, attributes: ["usesNonExemptEncryption"], optional: [], relationships: []) {
            case .refused(let refusal): return refusal
            case .ok(let parsed):
                builds[id]?.encryption = parsed.attributes["usesNonExemptEncryption"] as? Bool
                return reply(200, ["data": buildJSON(id, builds[id] ?? Build(appID: "", version: "", shortVersion: "", processingState: ""))])
            }
        } else if let c = m("GET", "v1/apps/*/buildUploads") {
            let appID = c[0];
            guard apps[appID] != nil else { return notFound("apps", appID) }
            func allows(_ name: String, _ value: String) -> Bool { query[name].map { $0.split(separator: ",").map(String.init).contains(value) } ?? true }
            let matching = uploads.filter {
                $0.value.appID == appID && allows("filter[cfBundleShortVersionString]", $0.value.version) && allows("filter[cfBundleVersion]", $0.value.build)
                    && allows("filter[platform]", $0.value.platform) && allows("filter[state]", $0.value.state)
            }.sorted { $0.key > $1.key }
            // Pages of `limit` (Apple's default 50; the stand-in's page size when smaller), `links.next` to the rest.
            let size = min(Int(query["limit"] ?? "") ?? 50, buildUploadPageSize)
            let start = Int(query["cursor"] ?? "") ?? 0
            let page = Array(matching.dropFirst(start).prefix(size))
            var links: [String: Any] = ["self": baseURL + path]
            if start + size < matching.count {
                var next = URLComponents(string: baseURL + path)
                next?.queryItems = query.filter { $0.key != "cursor" }.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
                    + [URLQueryItem(name: "cursor", value: String(start + size))]
                links["next"] = next?.string ?? ""
            }
            return reply(200, ["data": page.map { uploadJSON($0.key, $0.value) }, "links": links,
                               "meta": ["paging": ["total": matching.count, "limit": size]]])
        } else if m("POST", "v1/buildUploads") != nil {
            return createUpload(body)
        } else if let c = m("GET", "v1/buildUploads/*") {
            let id = c[0];
            guard var upload = uploads[id] else { return notFound("buildUploads", id) }
            if upload.state == "PROCESSING" {
                upload.polls += 1
                if upload.polls > processingPolls {
                    if processingErrors != nil {
                        upload.state = "FAILED"
                    } else {
                        upload.state = "COMPLETE"
                        let buildID = newID("build")
                        builds[buildID] = Build(appID: upload.appID, version: upload.build, shortVersion: upload.version,
                                                processingState: buildProcessingPolls > 0 ? "PROCESSING" : "VALID", platform: upload.platform)
                        upload.buildID = buildID
                    }
                }
                uploads[id] = upload
            }
            return reply(200, ["data": uploadJSON(id, upload)])
        } else if let c = m("DELETE", "v1/buildUploads/*") {
            let id = c[0];
            guard let upload = uploads[id] else { return notFound("buildUploads", id) }
            guard upload.state != "COMPLETE" else {
                return error(409, "ENTITY_ERROR.DELETE_NOT_ALLOWED", "The build upload cannot be deleted", "a completed build upload cannot be deleted")
            }
            uploads[id] = nil
            for fileID in upload.fileIDs { files[fileID] = nil }
            return replyEmpty(204)
        } else if m("POST", "v1/buildUploadFiles") != nil {
            return createFile(body)
        } else if let c = m("PATCH", "v1/buildUploadFiles/*") {
            let id = c[0];
            return commitFile(id, body)
        } else if let c = m("GET", "v1/apps/*/betaGroups") {
            let appID = c[0];
            return reply(200, ["data": groups.filter { $0.value.appID == appID }.sorted { $0.key < $1.key }.map { ["type": "betaGroups", "id": $0.key, "attributes": ["name": $0.value.name, "isInternalGroup": false]] }])
        } else if let c = m("GET", "v1/builds/*/betaBuildLocalizations") {
            let id = c[0];
            return reply(200, ["data": localizations.filter { $0.value.buildID == id }.map { ["type": "betaBuildLocalizations", "id": $0.key, "attributes": ["locale": $0.value.locale, "whatsNew": $0.value.whatsNew]] }])
        } else if m("POST", "v1/betaBuildLocalizations") != nil {
            switch jsonAPI(body, type: "betaBuildLocalizations", id: nil, attributes: ["locale", "whatsNew"], optional: [], relationships: ["build"]) {
            case .refused(let refusal): return refusal
            case .ok(let parsed):
                guard let buildID = parsed.related["build"], builds[buildID] != nil else { return notFound("builds", parsed.related["build"] ?? "") }
                let id = newID("loc")
                let locale = parsed.attributes["locale"] as? String ?? "", text = parsed.attributes["whatsNew"] as? String ?? ""
                localizations[id] = (buildID, locale, text)
                builds[buildID]?.whatsNew[locale] = text
                return reply(201, ["data": ["type": "betaBuildLocalizations", "id": id, "attributes": ["locale": locale, "whatsNew": text]]])
            }
        } else if let c = m("PATCH", "v1/betaBuildLocalizations/*") {
            let id = c[0];
            guard let current = localizations[id] else { return notFound("betaBuildLocalizations", id) }
            switch jsonAPI(body, type: "betaBuildLocalizations", id: id, attributes: ["whatsNew"], optional: [], relationships: []) {
            case .refused(let refusal): return refusal
            case .ok(let parsed):
                let text = parsed.attributes["whatsNew"] as? String ?? ""
                localizations[id] = (current.buildID, current.locale, text)
                builds[current.buildID]?.whatsNew[current.locale] = text
                return reply(200, ["data": ["type": "betaBuildLocalizations", "id": id, "attributes": ["locale": current.locale, "whatsNew": text]]])
            }
        } else if let c = m("POST", "v1/builds/*/relationships/betaGroups") {
            let id = c[0];
            guard builds[id]?.processingState == "VALID" else { return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The build is not ready", "the build is still processing") }
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], Set(object.keys) == ["data"],
                  let linkages = object["data"] as? [[String: Any]], !linkages.isEmpty,
                  linkages.allSatisfy({ Set($0.keys) == ["type", "id"] && $0["type"] as? String == "betaGroups" && groups[$0["id"] as? String ?? ""] != nil }) else {
                return error(409, "ENTITY_ERROR", "The request entity is invalid", "data must list betaGroups linkages")
            }
            builds[id]?.groups += linkages.compactMap { $0["id"] as? String }
            return replyEmpty(204)
        } else if m("POST", "v1/betaAppReviewSubmissions") != nil {
            switch jsonAPI(body, type: "betaAppReviewSubmissions", id: nil, attributes: [], optional: [], relationships: ["build"]) {
            case .refused(let refusal): return refusal
            case .ok(let parsed):
                guard let buildID = parsed.related["build"], let build = builds[buildID] else { return notFound("builds", "") }
                if let refusal = betaReviewRefusal {
                    return error(409, refusal.code, "The request entity is invalid", refusal.detail)
                }
                if build.betaReview != nil {
                    return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The request entity is invalid", "the build already has a beta app review submission")
                }
                let id = newID("review")
                builds[buildID]?.betaReview = (id, "WAITING_FOR_REVIEW")
                return reply(201, ["data": ["type": "betaAppReviewSubmissions", "id": id, "attributes": ["betaReviewState": "WAITING_FOR_REVIEW"]]])
            }
        } else if let c = m("GET", "v1/builds/*/betaAppReviewSubmission") {
            let id = c[0];
            guard let build = builds[id] else { return notFound("builds", id) }
            guard let review = build.betaReview else { return notFound("betaAppReviewSubmissions", "") }
            return reply(200, ["data": ["type": "betaAppReviewSubmissions", "id": review.id, "attributes": ["betaReviewState": review.state]]])
        } else {
            return error(404, "NOT_FOUND", "The specified resource does not exist", "no route for \(method) \(path)")
        }
    }

    func notFound(_ type: String, _ id: String) -> Response {
        error(404, "NOT_FOUND", "The specified resource does not exist", "There is no resource of type '\(type)' with id '\(id)'")
    }

    func buildJSON(_ id: String, _ build: Build) -> [String: Any] {
        var attributes: [String: Any] = ["version": build.version, "processingState": build.processingState, "expired": false]
        if let encryption = build.encryption { attributes["usesNonExemptEncryption"] = encryption }
        return ["type": "builds", "id": id, "attributes": attributes]
    }

    func uploadJSON(_ id: String, _ upload: BuildUpload) -> [String: Any] {
        var state: [String: Any] = ["state": upload.state]
        if upload.state == "FAILED" {
            state["errors"] = (processingErrors ?? []).map { ["code": $0.0, "description": $0.1] }
            state["warnings"] = [["code": "ITMS-90725", "description": "SDK version issue"]]
        }
        var resource: [String: Any] = ["type": "buildUploads", "id": id, "attributes": [
            "cfBundleShortVersionString": upload.version, "cfBundleVersion": upload.build, "platform": upload.platform, "state": state,
        ]]
        if let buildID = upload.buildID { resource["relationships"] = ["build": ["data": ["type": "builds", "id": buildID]]] }
        return resource
    }

    struct ParsedDocument { var attributes: [String: Any]; var related: [String: String] }
    enum Parsed { case ok(ParsedDocument), refused(Response) }

    /// Parses a JSON:API body, refusing missing or extra members as Apple does (409 ENTITY_ERROR).
    func jsonAPI(_ body: [UInt8], type: String, id: String?, attributes required: Set<String>, optional: Set<String>,
                 relationships: Set<String>) -> Parsed {
        func refuse(_ detail: String) -> Parsed {
            .refused(error(409, "ENTITY_ERROR", "The request entity is invalid", detail))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], Set(object.keys) == ["data"],
              let data = object["data"] as? [String: Any] else { return refuse("the body must be a document with only data") }
        var expectedKeys: Set<String> = ["type"]
        if id != nil { expectedKeys.insert("id") }
        if !required.isEmpty { expectedKeys.insert("attributes") }
        if !relationships.isEmpty { expectedKeys.insert("relationships") }
        guard Set(data.keys) == expectedKeys else { return refuse("data has members \(data.keys.sorted()), expected \(expectedKeys.sorted())") }
        guard data["type"] as? String == type else { return refuse("type must be \(type)") }
        if let id, data["id"] as? String != id { return refuse("id must be \(id)") }
        let attributes = data["attributes"] as? [String: Any] ?? [:]
        let missing = required.subtracting(attributes.keys), extra = Set(attributes.keys).subtracting(required.union(optional))
        guard missing.isEmpty else { return refuse("missing attribute \(missing.sorted().joined(separator: ", "))") }
        guard extra.isEmpty else { return refuse("unknown attribute \(extra.sorted().joined(separator: ", "))") }
        var related: [String: String] = [:]
        let given = data["relationships"] as? [String: Any] ?? [:]
        guard Set(given.keys) == relationships else { return refuse("relationships must be \(relationships.sorted())") }
        for (name, value) in given {
            guard let wrapper = value as? [String: Any], Set(wrapper.keys) == ["data"], let linkage = wrapper["data"] as? [String: Any],
                  Set(linkage.keys) == ["type", "id"], let linkedID = linkage["id"] as? String else { return refuse("relationship \(name) is malformed") }
            related[name] = linkedID
        }
        return .ok(ParsedDocument(attributes: attributes, related: related))
    }
}
