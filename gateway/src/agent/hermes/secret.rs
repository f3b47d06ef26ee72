//! The Hermes link's secret: made by the gateway on first use, kept in the
//! data directory (owner-only) where Hermes's config points the plugin.

use std::io::Write;
use std::path::{Path, PathBuf};

use rand::RngExt;

/// File name of the secret in the data directory.
pub const FILE_NAME: &str = "hermes-link.secret";
/// 32 random bytes, hex: 64 characters.
const SECRET_BYTES: usize = 32;

/// Where the secret lives for the data directory `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE_NAME)
}

/// The secret of `data_dir`, made and saved if there is none yet.
pub fn load_or_create(data_dir: &Path) -> std::io::Result<String> {
    let path = path(data_dir);
    match std::fs::read_to_string(&path) {
        Ok(secret) if secret.trim().len() >= 16 => return Ok(secret.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    std::fs::create_dir_all(data_dir)?;
    let mut rng = rand::rng();
    let secret: String = (0..SECRET_BYTES)
        .map(|_| format!("{:02x}", rng.random::<u8>()))
        .collect();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&path)?;
    file.write_all(secret.as_bytes())?;
    file.write_all(b"\n")?;
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_reused_and_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let secret = load_or_create(dir.path()).expect("made");
        assert_eq!(secret.len(), 2 * SECRET_BYTES);
        assert_eq!(load_or_create(dir.path()).expect("read"), secret);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path(dir.path()))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0);
        }
    }
}
