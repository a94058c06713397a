/** What the build injects into the service worker: the files of this build, relative to its scope. */
declare const APP_SHELL: {
  /** Changes with every build whose files differ: it names the cache, so that a new build replaces the old one. */
  readonly version: string;
  /** The content-hashed files the page loads, precached at install. */
  readonly assets: readonly string[];
  /** The icon notifications show. */
  readonly icon: string;
};
