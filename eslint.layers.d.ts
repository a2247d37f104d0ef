import type { Linter } from 'eslint';

export declare const LAYERS: readonly { folder: string; packages: readonly string[] }[];
export declare function layerZones(): Linter.Config[];
