// warden/web: `warden serve`, the dashboard's server. It sits above the host and below the CLI.
export { startWebServer, type RunningWebServer, type PageFiles } from "./webServer.js";
export { readOrMakeToken, rotateToken, TOKEN_FILE } from "./webToken.js";
export { BadListenError, NotLoopbackError, WebTokenError } from "./errors.js";
export { readPageFiles, PageNotBuiltError } from "./pageFiles.js";
export { parseListen, DEFAULT_LISTEN, type ListenAddress } from "./listenAddress.js";
export { startNotifier, type NotifyOptions, type RunningNotifier } from "./notifier.js";
export { dueForResume, startDueResumer, type RunningResumer } from "./dueResumes.js";
