// Ids as verbs show them: each by its shortest unique prefix among the store's tasks, in this
// machine's store or a fleet's alike.
import { shortIds, STORE_LIMITS, Tasks, type TaskStore } from "../store/index.js";

/** The shown form of each of `ids`, unique among every task of `store`. */
export async function shownIds(
  store: TaskStore,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (store instanceof Tasks) return store.shortIds(ids);
  const all = (await store.list()).map((task) => task.id);
  return shortIds(ids, all, STORE_LIMITS.shownIdChars);
}

/** The shown form of `id`. */
export async function shownId(store: TaskStore, id: string): Promise<string> {
  return (await shownIds(store, [id])).get(id) ?? id;
}
