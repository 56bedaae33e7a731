// Stepping inside a running task: the sockets the executor serves (the runner's connections and
// the user's door) and the user's side of a session.
export { GuestLinks } from "./guestLinks.js";
export { InsideDoor, DOOR_SOCKET } from "./insideDoor.js";
export { INSIDE_EVENTS } from "./insideEvents.js";
export { FrameSocket } from "./frameSocket.js";
export {
  insideTarget,
  connectInside,
  runInside,
  releaseHold,
  exitStatus,
  type InsideTarget,
  type SessionOutput,
} from "./insideClient.js";
export {
  InsideNotAllowedError,
  InsideNotServingError,
  InsideSessionError,
  InsideCopyPathError,
} from "./errors.js";
