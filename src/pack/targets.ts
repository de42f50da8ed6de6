import { IoStoreError } from '../errors.js';
import { isIoStoreRelease, parseLegacyEngineRelease } from '../legacy/versions.js';
import type { EngineVersion } from '../toc/engine.js';
import type { ContainerHeaderVersionName } from '../zen/container-header.js';

/** What an engine release writes: TOC, container header and companion pak versions. */
export interface EngineTarget {
  engine: EngineVersion;
  tocVersion: number;
  containerHeaderVersion: ContainerHeaderVersionName;
  pakVersion: number;
}

// From the fact sheet's version table, checked where the corpus has bytes (5.1, 5.8, "6.0").
const TARGETS: Record<EngineVersion, Omit<EngineTarget, 'engine'>> = {
  UE4_25: { tocVersion: 2, containerHeaderVersion: 'Initial', pakVersion: 9 },
  UE4_26: { tocVersion: 2, containerHeaderVersion: 'Initial', pakVersion: 11 },
  UE4_27: { tocVersion: 3, containerHeaderVersion: 'Initial', pakVersion: 11 },
  UE5_0: { tocVersion: 5, containerHeaderVersion: 'LocalizedPackages', pakVersion: 11 },
  UE5_1: { tocVersion: 5, containerHeaderVersion: 'OptionalSegmentPackages', pakVersion: 11 },
  UE5_2: { tocVersion: 5, containerHeaderVersion: 'OptionalSegmentPackages', pakVersion: 11 },
  UE5_3: { tocVersion: 5, containerHeaderVersion: 'NoExportInfo', pakVersion: 11 },
  UE5_4: { tocVersion: 6, containerHeaderVersion: 'NoExportInfo', pakVersion: 11 },
  UE5_5: { tocVersion: 8, containerHeaderVersion: 'SoftPackageReferences', pakVersion: 11 },
  UE5_6: { tocVersion: 8, containerHeaderVersion: 'SoftPackageReferencesOffset', pakVersion: 11 },
  UE5_7: { tocVersion: 8, containerHeaderVersion: 'SoftPackageReferencesOffset', pakVersion: 12 },
  UE5_8: { tocVersion: 8, containerHeaderVersion: 'SoftPackageReferencesOffset', pakVersion: 12 },
  UE6_0: { tocVersion: 10, containerHeaderVersion: 'SoftPackageReferencesOffset', pakVersion: 15 },
};

export function engineTarget(name: string): EngineTarget {
  const engine = parseLegacyEngineRelease(name);
  if (!isIoStoreRelease(engine)) {
    throw new IoStoreError('UNSUPPORTED', `${engine} has no IoStore containers (they start with UE 4.26): its packages can be read (inspect --version ${engine}), not converted to zen`);
  }
  const t = TARGETS[engine];
  if (!t) throw new IoStoreError('USAGE', `no target settings for ${engine}`);
  return { engine, ...t };
}
