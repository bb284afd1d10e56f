; Windows installer of Agent Canvas (NSIS 3). NOT BUILT OR RUN HERE: see packaging/README.md.
; On Windows, after `pyinstaller packaging/agent-canvas.spec` has written build\bundle\agent-canvas:
;   makensis /DVERSION=0.1.0 packaging\windows\agent-canvas.nsi
; writes dist\agent-canvas-VERSION-windows-x64-setup.exe. SOURCE may name another bundle folder.

Unicode true
!include "MUI2.nsh"
!include "x64.nsh"

!ifndef VERSION
  !error "pass the version: makensis /DVERSION=X.Y.Z agent-canvas.nsi"
!endif
!ifndef SOURCE
  !define SOURCE "..\..\build\bundle\agent-canvas"
!endif
!ifndef OUTDIR
  !define OUTDIR "..\..\dist"
!endif

!define NAME "Agent Canvas"
!define EXE "Agent Canvas.exe"
!define CLI "agent-canvas.exe"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\AgentCanvas"
!define PROGID "AgentCanvas.Workflow"

Name "${NAME} ${VERSION}"
OutFile "${OUTDIR}\agent-canvas-${VERSION}-windows-x64-setup.exe"
InstallDir "$PROGRAMFILES64\${NAME}"
InstallDirRegKey HKLM "${UNINSTALL_KEY}" "InstallLocation"
RequestExecutionLevel admin
SetCompressor /SOLID lzma

!define MUI_ICON "agent-canvas.ico"
!define MUI_UNICON "agent-canvas.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "${NAME} needs 64-bit Windows."
    Abort
  ${EndIf}
  SetRegView 64
FunctionEnd

Section "Install"
  SetOutPath "$INSTDIR"
  ; a reinstall replaces the bundle whole: no file of an older version is left to load
  RMDir /r "$INSTDIR\_internal"
  File /r "${SOURCE}\*.*"
  File "agent-canvas.ico"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${NAME}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\agent-canvas.ico"

  ; "Open with Agent Canvas" for YAML files (*.flow.yaml are YAML to Windows, which
  ; knows only the last extension); the default program of .yaml is left alone.
  WriteRegStr HKLM "Software\Classes\${PROGID}" "" "Agent Canvas workflow"
  WriteRegStr HKLM "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\agent-canvas.ico"
  WriteRegStr HKLM "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\${EXE}" "%1"'
  WriteRegStr HKLM "Software\Classes\.yaml\OpenWithProgids" "${PROGID}" ""

  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayName" "${NAME}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "Publisher" "Agent Canvas contributors"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\agent-canvas.ico"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINSTALL_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetRegView 64
  Delete "$SMPROGRAMS\${NAME}.lnk"
  DeleteRegValue HKLM "Software\Classes\.yaml\OpenWithProgids" "${PROGID}"
  DeleteRegKey HKLM "Software\Classes\${PROGID}"
  DeleteRegKey HKLM "${UNINSTALL_KEY}"
  ; the bundle only: runs stay in the user's data folder (%LOCALAPPDATA%\agent-canvas)
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\${CLI}"
  Delete "$INSTDIR\agent-canvas.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
SectionEnd
