// The dashboard page: takes the token from the address it was opened with (and keeps it for
// this tab only), then shows the list or one task by the address's fragment.
import { Api } from "./api.js";
import { showList } from "./listView.js";
import { showTask } from "./taskView.js";

const TOKEN_KEY = "warden-token";

function token(): string {
  const params = new URLSearchParams(location.search);
  const given = params.get("token");
  if (given !== null) {
    sessionStorage.setItem(TOKEN_KEY, given);
    // The address bar and history keep no token.
    history.replaceState(null, "", location.pathname + location.hash);
    return given;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

function start(): void {
  const main = document.getElementById("main");
  if (main === null) return;
  const api = new Api(token());
  let current = new AbortController();
  const route = (): void => {
    current.abort();
    current = new AbortController();
    const match = /^#\/task\/([0-9a-z]+)$/.exec(location.hash);
    if (match?.[1] !== undefined) showTask(main, api, match[1], current.signal);
    else showList(main, api, current.signal);
  };
  window.addEventListener("hashchange", route);
  route();
}

start();
