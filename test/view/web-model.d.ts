/** The one DOM global the viewer's model (web/src/model) names, for tests that run it in Node (it falls back). */
declare function requestAnimationFrame(callback: () => void): number;
