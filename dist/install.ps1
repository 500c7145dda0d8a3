# Installs the ticklab command (its page inside) from the project's release archives, for
# Windows on x86_64 (and on ARM64, through Windows' x64 emulation):
#
#   powershell -ExecutionPolicy Bypass -c "irm @REPOSITORY@/releases/latest/download/ticklab-installer.ps1 | iex"
#
# It downloads the archive, checks its SHA-256 against the release's, puts ticklab.exe in
# %LOCALAPPDATA%\Programs\ticklab (or $env:TICKLAB_INSTALL_DIR) and adds that folder to the
# user's PATH. $env:TICKLAB_DOWNLOAD_URL fetches the archives from elsewhere (a mirror, a
# folder served on a school network). `cargo xtask dist` writes this file with the
# release's version.
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

$version = '@VERSION@'
$target = 'x86_64-pc-windows-gnu'
$base = if ($env:TICKLAB_DOWNLOAD_URL) { $env:TICKLAB_DOWNLOAD_URL } else { "@REPOSITORY@/releases/download/v$version" }
$dest = if ($env:TICKLAB_INSTALL_DIR) { $env:TICKLAB_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA 'Programs\ticklab' }

$name = "ticklab-$version-$target"
$archive = "$name.zip"
$tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("ticklab-" + [System.Guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    Write-Host "ticklab-installer: downloading $base/$archive"
    Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive" -OutFile (Join-Path $tmp $archive)
    Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive.sha256" -OutFile (Join-Path $tmp "$archive.sha256")
    $want = ((Get-Content (Join-Path $tmp "$archive.sha256") -Raw) -split '\s+')[0].ToLower()
    $got = (Get-FileHash -Algorithm SHA256 (Join-Path $tmp $archive)).Hash.ToLower()
    if (-not $want -or $want -ne $got) {
        throw "$archive`: SHA-256 $got, the release says $want`: not installed"
    }
    Expand-Archive -Path (Join-Path $tmp $archive) -DestinationPath $tmp -Force
    $exe = Join-Path $tmp "$name\ticklab.exe"
    if (-not (Test-Path $exe)) { throw "$archive holds no $name\ticklab.exe" }
    New-Item -ItemType Directory -Force -Path $dest | Out-Null
    Copy-Item -Force $exe (Join-Path $dest 'ticklab.exe')
    Write-Host "ticklab-installer: installed $(Join-Path $dest 'ticklab.exe') ($version, $target)"
    $path = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (-not (($path -split ';') -contains $dest)) {
        $new = if ($path) { "$path;$dest" } else { $dest }
        [Environment]::SetEnvironmentVariable('Path', $new, 'User')
        Write-Host "ticklab-installer: added $dest to your PATH (open a new terminal to use it)"
    }
}
finally {
    Remove-Item -Recurse -Force $tmp -ErrorAction SilentlyContinue
}
