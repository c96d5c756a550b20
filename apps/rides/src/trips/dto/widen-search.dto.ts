/**
 * Body of `POST /trips/:id/widen-search`: nothing to send (`{}` or no body). Declared so that the
 * validation pipe refuses unknown fields with a 400 instead of ignoring them: a client must not
 * believe it chose how much time it gets (SEARCH_EXTENSION_MS decides).
 */
export class WidenSearchDto {}
