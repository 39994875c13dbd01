/// A JSON value with ordered object keys, rendered compactly: the REST API's bodies are
/// built from these so numbers, booleans and null come out exactly as OpenTok's.
indirect enum JSONValue {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// `.string(text)`, or `.null` for nil.
    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// The compact JSON text.
    var text: String {
        switch self {
        case .string(let value): return RouterLog.quote(value)
        case .int(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): return "{" + fields.map { RouterLog.quote($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }
}
