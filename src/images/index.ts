// The images domain's public face: what other domains may use of it (STYLE.md, Layout).
export type { ImagesService } from './service.js'
export { imagesRoutes } from './api/routes.js'
export { createImagesService } from './service.js'
export { LocalDirBlobStore } from './store/blob-store.js'
export type { BlobStore } from './store/blob-store.js'
export { createBlobStore, localImagesDir, resolveBlobStoreKind, storeOfKind } from './store/blob-stores.js'
export type { BlobStoreConfig } from './store/blob-stores.js'
export { moveImages } from './store/migrate-blobs.js'
