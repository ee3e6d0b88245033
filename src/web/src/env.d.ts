/** Vite turns CSS imports into stylesheets; TypeScript only needs to know they exist. */
declare module '*.css' {}
