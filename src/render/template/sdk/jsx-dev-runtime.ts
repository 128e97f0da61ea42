/** The development entry point some compilers ask for (`jsxDEV`); the same runtime. */
export { Fragment, JSX, jsx, jsxDEV, jsxs } from './jsx-runtime.js';
