// The task event types the channel writes. They sit apart from the channel's server so that what
// only reads events (`warden ls`, `show`, `watch`) names them without loading the server.

/** The task event type of an agent's events; the agent event's own type is its `kind`. */
export const AGENT_EVENT_TYPE = "agent";

/**
 * The task event type of a line a command agent wrote (an agent event of type `output`): kept
 * apart from the agent's actions, with a cap of its own, so a chatty command never uses up the
 * room of the events that say what an agent did.
 */
export const OUTPUT_EVENT_TYPE = "output";
