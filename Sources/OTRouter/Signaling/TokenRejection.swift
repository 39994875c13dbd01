import OTSignaling

/// The metrics label for a refused connection token (`otkit_bad_tokens_total{reason=…}`).
enum TokenRejection {
    static func reason(_ error: OTSignalingError) -> String {
        switch error {
        case .malformed: return "malformed"
        case .badSignature: return "bad_signature"
        case .expired: return "expired"
        case .wrongSession: return "wrong_session"
        case .wrongAPIKey: return "wrong_api_key"
        case .connectionDataTooLong: return "connection_data_too_long"
        case .layoutClassListTooLong: return "layout_class_list_too_long"
        case .expiryTooFar: return "expiry_too_far"
        case .unknownRole: return "unknown_role"
        case .notProjectToken: return "not_project_token"
        case .lifetimeTooLong: return "lifetime_too_long"
        case .missingAuthentication, .connectionTokenNotAccepted, .notYetValid, .invalidArgument: return "malformed"
        }
    }
}
