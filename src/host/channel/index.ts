// warden/host/channel: the guest-to-host channel of one attach and the permission prompts it
// carries: the socket server, its connections, the agent events it checks, and the approval desk
// with its rules and policy.
export { startChannelServer, type RunningChannel } from "./channelServer.js";
export { type OutputEvent, type SetupRequest } from "./channelServer.js";
export { AGENT_EVENT_TYPE, OUTPUT_EVENT_TYPE } from "./eventTypes.js";
export { ApprovalDesk } from "./approvalDesk.js";
export { type ApprovalRules, type ApprovePolicy } from "./approvalPolicy.js";
export { parseToolRules, MAX_TOOL_RULES, MAX_TOOL_RULE_BYTES } from "./toolRules.js";
