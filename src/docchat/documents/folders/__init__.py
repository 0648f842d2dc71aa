"""Followed folders on disk: their files read with a stat-only walk (`disk_files`), and the
watcher that syncs a change into the library while the app runs (`watcher`). The service that
decides what a change does to the library is `docchat.services.folders`."""
