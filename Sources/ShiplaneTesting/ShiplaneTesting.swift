@_exported import Shiplane
