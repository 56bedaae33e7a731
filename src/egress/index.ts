// warden/egress: the host side of the sandbox's network gate. The allow-list CONNECT proxy and
// the API relay listen on unix sockets that the sandbox's runner forwards its loopback ports to.
export { EGRESS_LIMITS } from "./limits.js";
export {
  BadAllowEntryError,
  BadRelaySettingError,
  EgressDirError,
  UnknownPresetError,
  RelayRefusal,
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
export { PRESETS, PRESET_NAMES, isPresetName, type PresetName } from "./presets.js";
export { parseIp, parseCidr, inCidr, type IpAddress, type Cidr } from "./ipAddress.js";
export {
  classifyAddress,
  classifyIp,
  describeClass,
  type AddressClass,
  type Classification,
  type Embedding,
} from "./classifyAddress.js";
export {
  DEFAULT_PORT,
  parseAllowEntry,
  parseAllowList,
  type AllowList,
  type AllowRule,
} from "./allowList.js";
export {
  parseTarget,
  formatTarget,
  planTarget,
  planAddresses,
  type Target,
  type TargetPlan,
  type AddressPlan,
} from "./checkTarget.js";
export { startProxy, type ProxyOptions, type RunningProxy } from "./startProxy.js";
export {
  CREDENTIAL_HEADERS,
  CREDENTIAL_PATTERN,
  HOP_BY_HOP,
  isCredentialHeader,
  CREDENTIAL_QUERY_PARAMS,
  upstreamHeaders,
  downstreamHeaders,
  upstreamQuery,
  authSecret,
  relayAuth,
  type RelayAuth,
} from "./relayHeaders.js";
export {
  checkRelayTarget,
  upstreamPath,
  type CheckedTarget,
  type TargetCheck,
} from "./relayTarget.js";
export { KeyScrubber, keyForms } from "./keyScrubber.js";
export {
  API_KINDS,
  RELAY_APIS,
  PLACEHOLDER_VARIABLES,
  keyVariables,
  keyVariablesText,
  relayErrorBody,
  routeText,
  type ApiKind,
  type ApiKeyVariable,
  type RelayApi,
  type RelayRoute,
  type RouteSegment,
} from "./relayApis.js";
export {
  DEFAULT_UPSTREAM,
  parseUpstream,
  relaySettingsFromEnv,
  makePlaceholderKey,
  checkPlaceholder,
  type Upstream,
  type RelayHostSettings,
} from "./relaySettings.js";
export { startRelay, type RelayOptions, type RunningRelay } from "./startRelay.js";
export {
  EGRESS_SOCKETS,
  startEgress,
  type EgressOptions,
  type RunningEgress,
} from "./startEgress.js";
export { GUEST_PORTS, sandboxEnv } from "./sandboxEnv.js";
