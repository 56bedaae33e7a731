// warden/egress: the host side of the sandbox's network gate. The allow-list CONNECT proxy and
// the API relay listen on unix sockets that the sandbox's runner forwards its loopback ports to.
export {
  BadAllowEntryError,
  BadRelaySettingError,
  EgressDirError,
  UnknownPresetError,
  RelayTargetFormError,
  RelayDotSegmentError,
  RelayEmptySegmentError,
  RelayBackslashError,
  RelayEscapeError,
  RelayFragmentError,
  RelayTargetCharacterError,
  RelayPathNotAllowedError,
  RelayMethodNotAllowedError,
} from "./errors.js";
export { parseAllowList } from "./allowList.js";
export { startProxy } from "./startProxy.js";
export { authSecret } from "./relayHeaders.js";
export { RELAY_APIS, PLACEHOLDER_VARIABLES, keyVariablesText } from "./relayApis.js";
export {
  relaySettingsFromEnv,
  makePlaceholderKey,
  type RelayHostSettings,
} from "./relaySettings.js";
export { startRelay, type RelayOptions } from "./startRelay.js";
export {
  PRICE_TABLE,
  findPrice,
  costOf,
  type FoundPrice,
  type ModelPrice,
  type PricedTokens,
} from "./modelPrices.js";
export { startEgress, type RunningEgress } from "./startEgress.js";
export { ApiKeyRejectedError, ApiUnreachableError, type UpstreamFailure } from "./errors.js";
export { checkApi, type ApiCheck, type ApiVerdict } from "./checkApi.js";
export { API_KINDS, type ApiKind } from "./relayApis.js";
export type { RequestUsage, SpendGate, SpendRefusal } from "./spendGate.js";
export { allowsTarget } from "./allowsTarget.js";
export { usageLimitOf, usageLimitInBody, type UsageLimit } from "./usageLimit.js";
